"""Render the numbers and tables the docs quote from their sources: benchmark results from
`benchmarks/results/*.json`, the settings table from `Context`. Each rendered part sits
between `<!-- rendered:NAME -->` and `<!-- /rendered -->` in a Markdown file.

    python codeheal_bench/scripts/render_docs.py           # rewrite the rendered parts
    python codeheal_bench/scripts/render_docs.py --check   # exit 1 if any is out of date (a test runs this)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from humaneval_models import both_winner, tiebreak_run

from codeheal.context import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
EARLIER_RUN = RESULTS / "humaneval-3attempts" / "humaneval.jsonl"
"""The records of the 0.5B model's earlier HumanEval run (up to 3 attempts, 3,000 tokens)."""
BLOCK = re.compile(r"(<!-- rendered:(?P<name>[a-z_]+) -->\n)(?P<body>.*?)(<!-- /rendered -->)", re.S)


def _load(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text(encoding="utf-8"))


def _kilo(tokens: int) -> str:
    return f"{tokens / 1000:.0f} k"


def humaneval_table() -> str:
    """One row per model and condition of the HumanEval runs (codeheal_bench/scripts/humaneval_models.py):
    hidden pass rate on all problems and on each slice, with the tokens, wall time and price it
    took; each model's default marked, and the retry condition that won its tuning slice named."""
    run = _load("humaneval")
    return _presets_table(run, (
        f"HumanEval, all {run['problems']} problems, each embedded model, every policy preset, up to 3 attempts "
        "at the current code (`benchmarks/results/humaneval.json`). Tuning slice: even task ids; report slice: odd "
        "task ids. Wall time includes attempt 1 (one greedy call, shared by every condition); price at the API "
        "list in `codeheal_bench/price.py`, attempt 1 counted once, under `one_shot`."))


def mbpp_table() -> str:
    """The MBPP runs as humaneval_table shows HumanEval's, and per model the retry condition with
    the most tuning passes on both benchmarks together (the rule the defaults follow)."""
    run = _load("mbpp")
    table = _presets_table(run, (
        f"MBPP, the first {run['problems']} problems of its test split (task ids 11-{10 + run['problems']}), one "
        "visible assert each (the problem's first), every assert of the problem hidden; each embedded model, every "
        "policy preset, up to 3 attempts at the current code (`benchmarks/results/mbpp.json`). Slices, wall time "
        "and price as for HumanEval."))
    suites = {"humaneval": _load("humaneval"), "mbpp": run}
    both = "; ".join(f"`{model}`: `{both_winner(suites, model, tiebreak_run(model))}`" for model in run["models"])
    return table + f"\nMost hidden passes on the two tuning slices together, per model: {both}.\n"


def _presets_table(run: dict, intro: str) -> str:
    rows = [
        intro,
        "",
        "| model | condition | hidden pass@1 | tuning | report | visible pass, hidden fail | mean attempts "
        "| tokens (prompt + completion) | wall time | price |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model, model_run in run["models"].items():
        for name, result in model_run["conditions"].items():
            slices = result["slices"]
            tuning, report = (f"{100 * slices[s]['rate']:.1f} % ({slices[s]['passed']})" for s in ("tuning", "report"))
            misses = _whole_run(model_run, result)["visible_passed_hidden_failed"]
            label = f"`{name}` (default)" if name == model_run["default"] else f"`{name}`"
            rows.append(
                f"| `{model}` | {label} | {100 * result['pass_at_1']:.1f} % ({result['passed']}) | {tuning} | "
                f"{report} | {misses} | {result['mean_attempts']:.2f} | {_kilo(result['tokens'])} "
                f"({_kilo(result['prompt_tokens'])} + {_kilo(result['completion_tokens'])}) | "
                f"{result['wall_s'] / 60:.0f} min | ${result['price_usd']:.4f} |"
            )
    winners = "; ".join(f"`{model}`: `{r['tuning_winner']}` (the default: `{r['default']}`)"
                        for model, r in run["models"].items())
    return "\n".join(rows) + f"\n\nMost hidden passes on the tuning slice, per model: {winners}.\n" + _unfinished(run)


def _unfinished(run: dict) -> str:
    """A line naming the conditions a model's run has begun and not finished yet, and one naming
    those its runs never ran (added since), if any."""
    pending = [f"`{model}` `{c}` ({n} of {run['problems']})" for model, model_run in run["models"].items()
               for c, n in model_run["unfinished"].items() if n]
    absent = sorted({f"`{c}`" for model_run in run["models"].values() for c, n in model_run["unfinished"].items() if not n})
    lines = f"\nNot finished yet, so not shown: {', '.join(pending)}; the run resumes where it stopped.\n" if pending else ""
    if absent:
        lines += f"\nNot in these runs (added since): {', '.join(absent)}.\n"
    return lines


def other_benchmarks() -> str:
    """A line per speed benchmark, from its results file."""
    loop = _load("loop_overhead")
    evaluator = _load("evaluator_overhead")
    sandbox = _load("sandbox_overhead")
    model = _load("local_model")
    concurrency = _load("concurrency")
    demo = _load("demo")
    larger = _load("local_1_5b")
    ids = {json.loads(line)["task_id"] for line in (RESULTS / "local_1_5b.jsonl").read_text().splitlines()}
    small = sum(
        r["hidden_passed"] for r in map(json.loads, EARLIER_RUN.read_text().splitlines())
        if r["condition"] == "one_shot" and r["task_id"] in ids
    )
    return "\n".join([
        f"- `local_1_5b.json`: `model=\"local-1.5b\"`, one_shot on {larger['problems']} HumanEval problems: "
        f"{100 * larger['pass_at_1']:.1f} % ({larger['passed']}; tuning {100 * larger['tuning']:.1f} %, report "
        f"{100 * larger['report']:.1f} %) against {small} for the 0.5B model on the same problems; "
        f"{larger['wall_s'] / 60:.0f} min, median {larger['median_s_per_problem']:.1f} s per problem and "
        f"{larger['median_completion_tokens']:.0f} completion tokens.",
        f"- `demo_time.py`: the README's demo (`make demo`'s solve, model already assembled), "
        f"with `{demo['model']}`, {len(demo['runs'])} runs: median {demo['median_wall_s']:.1f} s wall, healed in "
        f"{demo['healed']} of {len(demo['runs'])}.",
        f"- `loop_overhead.json`: the graph with a SQLite checkpointer against a plain Python loop, "
        f"same scripted model and sandbox, {loop['attempts_per_run']} attempts: median wall-time "
        f"ratio {loop['ratio']:.3f} over {loop['runs']} runs.",
        f"- `evaluator_overhead.json`: testing starting code through `graph.invoke` takes "
        f"{evaluator['graph_invoke_with_starting_code']['median_ms']:.0f} ms median, "
        f"{evaluator['local_sandbox_run']['median_ms']:.0f} ms of it in the sandbox.",
        f"- `sandbox_overhead.py`: the sandbox and the report plugin add "
        f"{sandbox['evaluator_minus_bare_pytest_ms']:.0f} ms to a bare pytest run "
        f"({sandbox['bare_pytest']['median_ms']:.0f} ms).",
        f"- `local_model_speed.py`: model load {model['load_s']:.1f} s, "
        f"{model['prompt_tokens_per_s']:.0f} prompt and {model['generation_tokens_per_s']:.0f} "
        f"generated tokens per second ({model['server']['threads']} threads).",
        f"- `concurrency.py`: {concurrency['runs']} runs on one compiled graph, "
        f"{concurrency['concurrent']['wall_s']:.1f} s at concurrency "
        f"{concurrency['concurrent']['concurrency']} against {concurrency['sequential']['wall_s']:.1f} s "
        f"one after another ({concurrency['speedup']:.1f} times faster).",
        fixed_test_cost(),
    ]) + "\n"


def fixed_test_cost() -> str:
    """The project form's cost to the first test, with plugin autoload off and (before) on."""
    run = _load("fixed_test_cost")
    parts = []
    for isolation, entry in run.items():
        median = {name: setting["median_s"] for name, setting in entry["settings"].items()}
        own, venv = "sandbox's own, autoload", "codeheal's virtualenv, autoload"
        parts.append(
            f"{isolation}: {median[own + ' as set now']:.2f} s on the sandbox's own interpreter "
            f"({median[own + ' on (before)']:.2f} s with autoload), {median[venv + ' as set now']:.2f} s on "
            f"codeheal's virtualenv ({median[venv + ' on (before)']:.2f} s), load average "
            f"{entry['load_average_1m']['before']:.0f}"
        )
    return (
        "- `fixed_test_cost.py`: one QuixBugs test run up to its first test (`--collect-only` in the "
        f"project job), median of the 20 programs, plugin autoload off on codeheal's environment: {'; '.join(parts)}."
    )


def quixbugs_summary(name: str = "quixbugs") -> str:
    """One QuixBugs run (benchmarks/results/NAME.json) in one paragraph."""
    run = _load(name)
    healed = [r["program"] for r in run["rows"] if r["healed"]]
    programs = run["programs"]
    tuning = (f" (tuning programs {run['healed_tuning']} of {run['programs_tuning']}, the others "
              f"{run['healed'] - run['healed_tuning']} of {programs - run['programs_tuning']})"
              if "healed_tuning" in run else "")
    return (
        f"`codeheal fix` on {programs} of the 20 QuixBugs programs with model `{run['model']}`, up to "
        f"{run['max_attempts']} attempts (attempt 1 runs the tests on the program as it is): healed "
        f"{run['healed']} of {programs}{tuning} ({', '.join(healed) or 'none'}), median diff of the healed "
        f"{run['median_changed_lines_healed']} changed lines, {run['whitespace_only_hunks']} hunks that "
        f"change only whitespace, only the program touched in {run['only_program_touched']} of {programs}; "
        f"{_kilo(run['tokens'])} tokens, {run['seconds'] / 60:.0f} min "
        f"(`benchmarks/results/{name}.md` has a row per program, `quixbugs.diff` beside it every diff).\n"
    )


def seeded_summary(name: str = "seeded_bugs") -> str:
    """One seeded-bugs run (benchmarks/results/NAME.json) in one paragraph."""
    run = _load(name)
    median = run["median_changed_lines_healed"]
    return (
        f"`codeheal fix` on {run['bugs']} seeded bugs in {' and '.join(run['libraries'])} with model "
        f"`{run['model']}`, up to {run['max_attempts']} attempts, the test file a user would name as the "
        f"test command: healed {run['healed']}, {run['healed_suite_passes']} of them with the whole suite "
        f"passing (target 3 in 4: {'met' if run['target_met'] else 'not met'}), the seeded line restored "
        f"exactly in {run['restored']}; "
        f"{'no healed diff' if median is None else f'median diff of the healed {median} changed lines'}, "
        f"{run['whitespace_only_hunks']} hunks that change only whitespace; {_kilo(run['tokens'])} "
        f"tokens, {run['seconds'] / 60:.0f} min (`benchmarks/results/{name}.md` has a row per bug, "
        "`seeded_bugs.diff` beside it every diff).\n"
    )


def first_attempt_table() -> str:
    """The first-attempt factors, one row per variant: hidden pass rate on the tuning slice
    (where choices are made) and, where run, on the report slice."""
    run = _load("first_attempt")
    rows = [
        "| variant | tuning slice (even ids) | report slice (odd ids) | median completion tokens "
        "| mean prompt tokens |",
        "|---|---|---|---|---|",
    ]

    def rate(part: dict | None) -> str:
        return f"{100 * part['hidden_pass_rate']:.1f} % of {part['problems']}" if part else "not run"

    for name, slices in run["variants"].items():
        t = slices["tuning"]
        rows.append(f"| `{name}` | {rate(t)} | {rate(slices.get('report'))} | "
                    f"{t['median_completion_tokens']} | {t['mean_prompt_tokens']:.0f} |")
    return "\n".join(rows) + "\n"


def server_settings_table() -> str:
    """One row per server setting: wall seconds of 8 first attempts, 8 retries and 8 pairs
    of retry samples, and the generation speed on retries."""
    run = _load("server_settings")
    rows = [
        "| setting | first attempts | retries | two samples per retry | retry generation |",
        "|---|---|---|---|---|",
    ]
    for name, row in run["rows"].items():
        speed = row["retry"]["median_generation_per_s"]
        rows.append(
            f"| `{name}` | {row['first']['total_wall_s']:.1f} s | {row['retry']['total_wall_s']:.1f} s | "
            f"{row['two_samples']['total_wall_s']:.1f} s | {speed:.0f} tokens/s |"
        )
    return "\n".join(rows) + "\n"


def selection_table() -> str:
    """Selection by generated inputs on the weak-test problems, per slice and K."""
    run = _load("selection")
    rows = [
        "| slice, K | problems | hidden pass before | after | visible pass, hidden fail before | after "
        "| tokens added |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, row in run["rows"].items():
        rows.append(
            f"| {name} | {row['problems']} | {row['one_shot_hidden_passed']} | {row['hidden_passed']} | "
            f"{row['visible_pass_hidden_fail_before']} | {row['visible_pass_hidden_fail_after']} | "
            f"{_kilo(row['tokens_added'])} |"
        )
    return "\n".join(rows) + "\n"


def retries_table() -> str:
    """What the retries of each condition did for the problems whose attempt 1 failed its
    visible tests, per slice: visible passes at attempts 2 and 3, hidden passes after each
    attempt (all problems), and the tokens spent on the failed ones."""
    records = [json.loads(line) for line in EARLIER_RUN.read_text().splitlines() if line.strip()]
    rows = [
        "| slice | condition | attempt 1 failed | visible pass at 2 | at 3 | hidden pass after 1 / 2 / 3 "
        "| tokens on the failed ones |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, parity in (("tuning", 0), ("report", 1)):
        for condition in ("resample", "raw_error", "self_heal"):
            group = [r for r in records if r["condition"] == condition and int(r["task_id"].split("/")[1]) % 2 == parity]
            failed = [r for r in group if r["attempt_log"][0]["kind"] != "passed"]
            at = [sum(len(r["attempt_log"]) > k and r["attempt_log"][k]["kind"] == "passed" for r in failed) for k in (1, 2)]
            hidden = " / ".join(str(sum(r["hidden_by_attempt"][k] for r in group)) for k in range(3))
            rows.append(f"| {name} | `{condition}` | {len(failed)} | {at[0]} | {at[1]} | {hidden} | "
                        f"{_kilo(sum(r['tokens'] for r in failed))} |")
    return "\n".join(rows) + "\n"


POLICY_RUNS = (("tuning", "humaneval-tuning"), ("report", "humaneval-report"), ("tuning", "humaneval-tuning-1.5b"),
               ("report", "humaneval-report-1.5b"), ("all", "humaneval-0.5b"), ("all", "humaneval-1.5b"),
               ("all", "humaneval-0.5b-presets"), ("all", "humaneval-1.5b-presets"))
"""The policy runs: a slice ("all": both) and its folder of results (`codeheal-bench humaneval --slice S --out DIR`)."""
POLICY_BUDGETS = (1000, 1500, 2000, 3000, 4000, 6000)


def policy_table() -> str:
    """Per slice and model, each condition's hidden pass rate had every run stopped within each
    budget, its tokens, and its runs whose visible tests passed where the hidden ones failed."""
    rows = [
        "| slice | model | condition | " + " | ".join(f"{b} tok" for b in POLICY_BUDGETS)
        + " | tokens | visible pass, hidden fail |",
        "|---|---|---|" + "---|" * (len(POLICY_BUDGETS) + 2),
    ]
    for name, folder in POLICY_RUNS:
        path = RESULTS / folder / "humaneval.json"
        if not path.exists():
            continue
        run = json.loads(path.read_text(encoding="utf-8"))
        for condition, result in run["conditions"].items():
            if result["finished"] != run["problems"]:
                continue  # an unfinished run (humaneval_table names it)
            part = result["slices"][name] if name != "all" else _whole_run(run, result)
            rates = " | ".join(f"{100 * part['hidden_pass_rate_by_budget'][str(b)]:.1f} %" for b in POLICY_BUDGETS)
            rows.append(f"| {name} ({part['problems']}) | `{run['model']}` | `{condition}` | {rates} | "
                        f"{_kilo(part['tokens'])} | {part['visible_passed_hidden_failed']} |")
    return "\n".join(rows) + "\n"


def _whole_run(run: dict, result: dict) -> dict:
    """A condition's numbers on every problem of its run, shaped like one slice's."""
    return {"problems": run["problems"], "hidden_pass_rate_by_budget": result["hidden_pass_rate_by_budget"],
            "tokens": result["tokens"],
            "visible_passed_hidden_failed": sum(s["visible_passed_hidden_failed"] for s in result["slices"].values())}


def headline() -> str:
    """The README's one-paragraph summary of the HumanEval runs."""
    run = _load("humaneval")
    parts = [
        f"`{model}`: " + ", ".join(f"`{name}`{' (default)' if name == model_run['default'] else ''} "
                                   f"{100 * result['pass_at_1']:.1f} %" for name, result in model_run["conditions"].items())
        for model, model_run in run["models"].items()
    ]
    return f"HumanEval ({run['problems']} problems, hidden tests, up to 3 attempts): {'; '.join(parts)}.\n"


def context_table() -> str:
    """Every setting (context.SETTINGS) with where it lives in a Context, its default and description."""
    rows = ["| setting | in Context | default | meaning |", "|---|---|---|---|"]
    for name, spec in SETTINGS.items():
        description, _, words = spec.description.partition(" Default: ")
        words = words.removesuffix(".")
        default = f"`{spec.default!r}`" if words in ("", "none", repr(spec.default)) else words  # chosen by model and form
        where = f"{spec.group}.{spec.attr}" if spec.group else spec.attr
        rows.append(f"| `{name}` | `{where}` | {default} | {description} |")
    return "\n".join(rows) + "\n"


RENDERERS: dict[str, Callable[[], str]] = {
    "humaneval": humaneval_table,
    "mbpp": mbpp_table,
    "benchmarks": other_benchmarks,
    "headline": headline,
    "quixbugs": quixbugs_summary,
    "quixbugs_large": lambda: quixbugs_summary("quixbugs-1.5b-screen/quixbugs"),
    "seeded": seeded_summary,
    "seeded_large": lambda: seeded_summary("seeded-1.5b/seeded_bugs"),
    "first_attempt": first_attempt_table,
    "context": context_table,
    "server_settings": server_settings_table,
    "selection": selection_table,
    "retries": retries_table,
    "policy": policy_table,
}
FILES = ("README.md", "docs/benchmarks.md", "docs/library.md", "docs/models.md")


def render(text: str) -> str:
    """`text` with every rendered part brought up to date."""
    def one(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in RENDERERS:
            raise KeyError(f"unknown rendered part {name!r}")
        return match.group(1) + RENDERERS[name]() + match.group(4)

    return BLOCK.sub(one, text)


def stale_files() -> list[str]:
    """The docs whose rendered parts differ from what their sources say."""
    return [name for name in FILES if render(text := (ROOT / name).read_text(encoding="utf-8")) != text]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report out-of-date files")
    args = parser.parse_args()
    stale = stale_files()
    if args.check:
        for name in stale:
            print(f"{name} is out of date: run python codeheal_bench/scripts/render_docs.py", file=sys.stderr)
        return 1 if stale else 0
    for name in stale:
        path = ROOT / name
        path.write_text(render(path.read_text(encoding="utf-8")), encoding="utf-8")
        print(f"rendered {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
