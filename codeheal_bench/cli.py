"""`codeheal-bench`: run a benchmark of codeheal (HumanEval, MBPP, QuixBugs, seeded bugs) and print
its summary. Exit codes: 0 done, 1 a seed check found problems, 2 bad input or configuration,
3 the model or the sandbox was unavailable."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from codeheal.errors import CodehealError, ConfigError, InputError
from codeheal_bench.humaneval_records import CONDITIONS

EXIT_DONE, EXIT_PROBLEMS, EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE = 0, 1, 2, 3
RESULTS = "benchmarks/results"
stderr = Console(stderr=True, highlight=False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark `argv` names; its exit code."""
    args = parser().parse_args(argv)
    try:
        return args.handler(args)
    except (ConfigError, InputError) as exc:
        stderr.print(f"[red]error:[/red] {exc}")
        return EXIT_BAD_INPUT
    except CodehealError as exc:
        stderr.print(f"[red]{type(exc).__name__}:[/red] {exc}")
        return EXIT_INFRASTRUCTURE


def parser() -> argparse.ArgumentParser:
    """The command line of `codeheal-bench`."""
    top = argparse.ArgumentParser(prog="codeheal-bench", description=__doc__.split("\n\n")[0])
    benchmarks = top.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    humaneval = benchmarks.add_parser(
        "humaneval", help="HumanEval: the policy presets (one_shot, resample, raw_error, self_heal, sample_first, adaptive)",
        description="Run the 164 HumanEval problems (or a slice) under each policy preset "
        "(Context.policy) with the library's other default settings. The prompt's examples are the visible tests "
        "that drive the loop; the official check only scores the final code. Per-problem results are appended to "
        "OUT/humaneval.jsonl as they arrive and a rerun skips the finished ones; then OUT/humaneval.json, .md and "
        ".png are written.",
    )
    _preset_flags(humaneval)
    humaneval.add_argument("--max-checks", type=int, metavar="N",
                           help="only the problems whose visible tests hold at most N checks (0: no example "
                           "mined from the prompt); the weak-test subset, chosen from the prompts alone")
    humaneval.add_argument("--first-check-only", action="store_true",
                           help="the loop's tests are each problem's first visible check alone (one assert, as "
                           "MBPP's); the prompt's other examples are left to the task text, where "
                           "task_examples reads them unless --no-task-examples")
    humaneval.set_defaults(handler=_humaneval, suite="humaneval", data=None)

    mbpp = benchmarks.add_parser(
        "mbpp", help="MBPP: the policy presets with one visible assert per problem",
        description="Run MBPP's test problems (task ids 11-510, or a slice, or the first N) under each policy "
        "preset, as `humaneval` does: the problem's first assert is the only test the loop sees; all its asserts "
        "score the final code. MBPP's mbpp.jsonl is not shipped: --data FILE or $CODEHEAL_MBPP_FILE. Results "
        "in OUT/mbpp.{jsonl,json,md,png}; a rerun skips the finished problems.",
    )
    _preset_flags(mbpp)
    mbpp.add_argument("--data", type=Path, metavar="FILE", help="MBPP's mbpp.jsonl (default: $CODEHEAL_MBPP_FILE)")
    mbpp.set_defaults(handler=_humaneval, suite="mbpp", max_checks=None, first_check_only=False)

    quixbugs = benchmarks.add_parser(
        "quixbugs", help="QuixBugs: `codeheal fix` on 20 programs with a one-line defect",
        description="Run `codeheal fix` on each QuixBugs program (../shared/data/quixbugs, or "
        "$CODEHEAL_QUIXBUGS_DIR) with its test file as the test command. Per-program results are "
        "appended to OUT/quixbugs.jsonl as they arrive and a rerun skips the finished ones; then "
        "OUT/quixbugs.json, .md (the table) and .diff (every diff) are written.",
    )
    quixbugs.add_argument("--only", nargs="+", metavar="NAME", default=(), help="only these programs")
    quixbugs.add_argument("--data", metavar="DIR", help="the QuixBugs folder")
    _project_flags(quixbugs)
    _common_flags(quixbugs, "one test run", 10.0)
    quixbugs.set_defaults(handler=_quixbugs)

    seeded = benchmarks.add_parser(
        "seeded", help="seeded bugs in real libraries (toolz, boltons): `codeheal fix` on each",
        description="Run `codeheal fix` on each seeded bug with the test file a user would name, scored healed, "
        "whole suite passing and exact restore. The sdists are fetched with pip into a cache "
        "($CODEHEAL_SEEDED_CACHE, else codeheal's user cache) and checked against their pinned SHA-256. "
        "Results in OUT/seeded_bugs.{jsonl,json,md,diff}; a rerun skips the finished bugs.",
    )
    seeded.add_argument("--check", action="store_true", help="only check the seeds (no model)")
    seeded.add_argument("--only", nargs="+", metavar="NAME", default=(), help="only these bugs")
    _project_flags(seeded)
    _common_flags(seeded, "one test run (default: derived from the run of the project as it is, as a user "
                  "gets it)", None)
    seeded.set_defaults(handler=_seeded)

    corpus = benchmarks.add_parser(
        "corpus", help="one-line bugs drawn by rule from nine libraries: `codeheal fix` on each case of a half",
        description="--draw draws the corpus (no model; codeheal_bench/corpus.py states the rule) into "
        "benchmarks/corpus/cases.json. Otherwise runs `codeheal fix` on each case of --half (tuning or report, "
        "split by the SHA-256 of the case's name), scored healed with the whole suite passing, healed but "
        "breaking it, not healed, ended in an error. Results in OUT/corpus_HALF.{jsonl,json,md,diff}.",
    )
    corpus.add_argument("--draw", action="store_true", help="draw the cases (no model)")
    corpus.add_argument("--localisation", action="store_true",
                        help="rank each case's buggy line in the suspicious-line ranking, both halves unless "
                        "--only (no model): OUT/localisation.{jsonl,json,md}")
    corpus.add_argument("--half", choices=("tuning", "report"), default="tuning", help="the half to run")
    corpus.add_argument("--limit", type=int, metavar="N", help="only the first N cases of the half")
    corpus.add_argument("--only", nargs="+", metavar="NAME", default=(), help="only these cases")
    _project_flags(corpus)
    _common_flags(corpus, "one test run (default: derived from the run of the project as it is)", None)
    corpus.set_defaults(handler=_corpus)
    return top


def _preset_flags(parser: argparse.ArgumentParser) -> None:
    """The flags of a benchmark of the policy presets on problems (HumanEval, MBPP)."""
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N problems")
    parser.add_argument("--skip", type=int, default=0, metavar="N",
                        help="pass over the first N problems of the slice, then --limit: a later stretch (default 0)")
    parser.add_argument("--concurrency", type=int, default=1, metavar="K",
                        help="problems run at once (default 1); give the embedded model K parallel slots "
                        "with CODEHEAL_LOCAL_SLOTS=K")
    parser.add_argument("--max-attempts", type=int, default=3, metavar="N",
                        help="attempt cap of every condition but one_shot (default 3)")
    parser.add_argument("--retry-samples", type=int, metavar="K",
                        help="candidates per retry (default: the library's, Context.retry_samples)")
    parser.add_argument("--select-samples", type=int, metavar="K",
                        help="after a pass, choose among up to K more candidates by their outputs on "
                        "generated inputs (default: the library's, Context.module.select_samples)")
    parser.add_argument("--hedge", action="store_true", default=None,
                        help="the first retry writes one sample shown the failure, the rest fresh "
                        "(Policy.hedge; default: each preset's own)")
    parser.add_argument("--max-tokens", type=int, metavar="N",
                        help="token budget of every run, the same for all conditions (default: none)")
    parser.add_argument("--no-task-examples", action="store_false", dest="task_examples", default=None,
                        help="the loop's tests alone decide a pass, not also the task text's examples "
                        "(Context.module.task_examples; default: the library's, on)")
    parser.add_argument("--slice", choices=("all", "tuning", "report"), default="all",
                        help="tuning: even task ids (where defaults are chosen); report: odd ones (default all)")
    parser.add_argument("--conditions", nargs="+", metavar="POLICY", choices=CONDITIONS, default=CONDITIONS,
                        help=f"the policy presets to run, of {', '.join(CONDITIONS)} (one_shot always runs; "
                        "default: every one)")
    parser.add_argument("--report-only", action="store_true",
                        help="run no problem: write the report of the records already in OUT (a condition counts "
                        "the problems it finished)")
    _common_flags(parser, "one visible-test run", 10.0)


def _project_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-attempts", type=int, metavar="N",
                        help="attempts per program, attempt 1 testing it as it is (default: the library's, "
                             "3: two repairs after the mutation screen)")
    parser.add_argument("--mutants", type=int, metavar="N",
                        help="mutations screened before the model (default: the library's; 0: the model alone)")


def _common_flags(parser: argparse.ArgumentParser, timed: str, timeout: float | None) -> None:
    """The flags every benchmark takes: the model, its endpoint, the test time limit, the output."""
    parser.add_argument("--model", default="local", metavar="M",
                        help='"local" (default, offline) or a model served at --base-url')
    parser.add_argument("--base-url", metavar="URL", help="OpenAI-compatible endpoint")
    default = "" if timeout is None else f" (default {timeout:g})"
    parser.add_argument("--timeout", type=float, default=timeout, metavar="S",
                        help=f"wall-clock limit of {timed}, seconds{default}")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="seed the model's samples (Policy.seed): a rerun draws the same ones, and conditions "
                        "share the samples they ask the same prompt for (default: unseeded)")
    parser.add_argument("--out", default=RESULTS, type=Path, metavar="DIR", help=f"results directory (default {RESULTS})")


def _humaneval(args: argparse.Namespace) -> int:
    from codeheal_bench.humaneval import BenchConfig, run_benchmark

    config = BenchConfig(
        out_dir=args.out, model=args.model, base_url=args.base_url, max_attempts=args.max_attempts,
        concurrency=args.concurrency, limit=args.limit, skip=args.skip, timeout_s=args.timeout,
        retry_samples=args.retry_samples, select_samples=args.select_samples, hedge=args.hedge,
        max_tokens=args.max_tokens, slice=args.slice, conditions=tuple(args.conditions),
        max_checks=args.max_checks, suite=args.suite, data=args.data, report_only=args.report_only,
        first_check_only=args.first_check_only, task_examples=args.task_examples, seed=args.seed,
    )
    summary = run_benchmark(config, stderr)
    for name, result in summary["conditions"].items():
        stderr.print(f"{name:<12} hidden {result['passed']}/{summary['problems']} "
                     f"(pass@1 {result['pass_at_1']:.3f}), mean attempts {result['mean_attempts']:.2f}, "
                     f"wall {result['wall_s']:.0f} s")
    print(args.out / f"{args.suite}.json")
    return EXIT_DONE


def _quixbugs(args: argparse.Namespace) -> int:
    from codeheal_bench.quixbugs_run import QuixConfig, run_quixbugs

    config = QuixConfig(
        out_dir=args.out, model=args.model, base_url=args.base_url, max_attempts=args.max_attempts,
        timeout_s=args.timeout, mutants=args.mutants, data_dir=Path(args.data) if args.data else None,
        only=tuple(args.only), seed=args.seed,
    )
    summary = run_quixbugs(config, stderr)
    stderr.print(f"healed {summary['healed']}/{summary['programs']}, median diff of the healed "
                 f"{summary['median_changed_lines_healed']} changed lines, only the program touched in "
                 f"{summary['only_program_touched']}/{summary['programs']}")
    print(args.out / "quixbugs.json")
    return EXIT_DONE


def _seeded(args: argparse.Namespace) -> int:
    from codeheal_bench.seeded_run import (
        SUITE_TIMEOUT_S,
        SeededConfig,
        check_seeds,
        run_seeded,
    )

    if args.check:
        problems = check_seeds(stderr, only=args.only, timeout_s=args.timeout or SUITE_TIMEOUT_S)
        for problem in problems:
            stderr.print(f"[red]{problem}[/red]")
        return EXIT_PROBLEMS if problems else EXIT_DONE
    config = SeededConfig(out_dir=args.out, model=args.model, base_url=args.base_url,
                          max_attempts=args.max_attempts, timeout_s=args.timeout, mutants=args.mutants,
                          only=tuple(args.only), seed=args.seed)
    summary = run_seeded(config, stderr)
    stderr.print(f"healed {summary['healed']}/{summary['bugs']}, whole suite passing in "
                 f"{summary['healed_suite_passes']}, restored {summary['restored']}")
    print(args.out / "seeded_bugs.json")
    return EXIT_DONE


def _corpus(args: argparse.Namespace) -> int:
    from codeheal_bench.corpus import CASES_FILE, SUITE_TIMEOUT_S, draw_cases, load_cases, write_cases
    from codeheal_bench.corpus_run import run_corpus
    from codeheal_bench.seeded_run import SeededConfig

    if args.draw:
        cases = draw_cases(log=stderr.print)
        write_cases(cases)
        print(CASES_FILE)
        return EXIT_DONE
    if args.localisation:
        from codeheal_bench.corpus_localisation import measure

        cases = [case for case in load_cases() if not args.only or case.name in args.only][:args.limit]
        summary = measure(cases, args.out, stderr, timeout_s=args.timeout or SUITE_TIMEOUT_S)
        stderr.print(f"buggy line in the top 1/5/10: {summary['all']['top_1']}/{summary['all']['top_5']}/"
                     f"{summary['all']['top_10']} of {summary['cases']}, median rank {summary['all']['median_rank']}")
        print(args.out / "localisation.json")
        return EXIT_DONE
    config = SeededConfig(out_dir=args.out, model=args.model, base_url=args.base_url,
                          max_attempts=args.max_attempts, timeout_s=args.timeout, mutants=args.mutants,
                          only=tuple(args.only), seed=args.seed)
    summary = run_corpus(config, stderr, args.half, limit=args.limit)
    stderr.print(f"{args.half}: {summary['healed_suite_passes']} healed with the suite passing, "
                 f"{summary['healed_but_breaking']} healed but breaking it, {summary['not_healed']} not healed, "
                 f"{summary['errors']} errors, of {summary['bugs']}")
    print(args.out / f"corpus_{args.half}.json")
    return EXIT_DONE


if __name__ == "__main__":
    sys.exit(main())
