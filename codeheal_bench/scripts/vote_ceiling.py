"""How far choosing by execution could go on HumanEval (or MBPP), read from what the models have already
written here, with no model call.

The pool: every reply of every attempt of every run in the results folders that keep replies
(a run copied into another folder counts once, as ever_passed.py reads them), per model and
problem. A reply sampled at a retry counts once each time it was written; the greedy first
attempt, which every run repeats, counts once per distinct code.

Each distinct candidate runs in the local sandbox (vote_runner.py, one job per problem): the
visible checks the loop uses, the official check, and what it returns on every argument list the
official check passes to the canonical solution: the benchmark's own inputs, better than any the
loop could generate. Per problem, the candidates that pass the visible checks are grouped by
those returns; the vote picks the heaviest group. So the vote's count is a ceiling for choosing
by execution with this many samples and inputs this good (the hidden outputs are never used to
choose, only to score). A tie that includes the greedy code's group keeps it (as the loop
would); other ties are also read both ways. Beside it: the greedy first attempt alone, any
visible-passing candidate (a perfect chooser), and any candidate at all.

    .venv/bin/python codeheal_bench/scripts/vote_ceiling.py --out benchmarks/results/vote_ceiling.json
    CODEHEAL_MBPP_FILE=/path/to/mbpp.jsonl .venv/bin/python codeheal_bench/scripts/vote_ceiling.py --suite mbpp \\
        --out benchmarks/results/vote_ceiling-mbpp.json

On MBPP the inputs are those of the problem's asserts, the first (the visible one) among them.

Judged candidates go to --rows as they finish (a rerun skips them).

With --rule, the declared rule of the samples runs instead (results README): per problem of
--samples (vote_samples.py's folder) that has all its samples, the pool is the greedy first
attempt of --greedy's one_shot record and those samples, each weight 1; it reports how many of
the greedy visible-pass / hidden-fail the vote turns into hidden passes, how many greedy hidden
passes it turns into failures, and whether the first exceeds the second by at least RULE_MARGIN:

    .venv/bin/python codeheal_bench/scripts/vote_ceiling.py --rule --model local-0.5b \\
        --greedy benchmarks/results/humaneval-0.5b-presets --samples benchmarks/results/humaneval-samples-0.5b \\
        --out benchmarks/results/vote_rule-0.5b.json
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from codeheal import Context
from codeheal.prompting.extraction import extract_code
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Job, Sandbox

from codeheal_bench.humaneval import load_suite
from codeheal_bench.problems import Problem, slice_of
from ever_passed import RESULTS, json_lines, read_runs

RUNNER = Path(__file__).with_name("vote_runner.py")
JOB_TIMEOUT_S = 900.0
MODELS = ("local-1.5b", "local-0.5b")
RULE_MARGIN = 3


@dataclass
class Pool:
    """What one model wrote for one problem."""

    weights: collections.Counter[str] = field(default_factory=collections.Counter)
    """Each candidate's weight in the vote."""
    greedy: collections.Counter[str] = field(default_factory=collections.Counter)
    """The first attempts' codes, with how often each was written."""
    finals: list[tuple[str, bool, bool]] = field(default_factory=list)
    """(final code, its record's visible pass, its record's hidden pass): to check the runner."""


def candidate_pools(runs: list[dict]) -> dict[str, dict[str, Pool]]:
    """Per model and problem, the pool of `runs` (see the module's docstring)."""
    pools: dict[str, dict[str, Pool]] = collections.defaultdict(lambda: collections.defaultdict(Pool))
    for run in runs:
        attempts = run.get("attempt_log") or []
        if not any(attempt.get("replies") for attempt in attempts):
            continue  # an older record that kept no replies
        pool = pools[run["model"]][run["task_id"]]
        greedy_start = not run["context"].get("temperature")
        for attempt in attempts:
            for reply in attempt.get("replies") or []:
                if code := extract_code(reply):
                    (pool.greedy if attempt["attempt"] == 1 and greedy_start else pool.weights)[code] += 1
        pool.finals.append((run["code"], run["status"] == "passed", bool(run["hidden_passed"])))
    for by_task in pools.values():
        for pool in by_task.values():
            for code in pool.greedy:
                pool.weights[code] += 1
    return pools


def first_code(run: dict) -> str:
    """The code of a run's first reply, as the pool extracts it; the final code if none was kept."""
    replies = (run.get("attempt_log") or [{}])[0].get("replies") or []
    return (extract_code(replies[0]) if replies else "") or run["code"]


def rule_pools(greedy_runs: list[dict], sample_runs: list[dict], model: str, samples: int) -> dict[str, Pool]:
    """Per problem with `samples` samples of `model` in `sample_runs` and a one_shot record in
    `greedy_runs`: the greedy code and the samples, each weight 1."""
    drawn: dict[str, list[str]] = collections.defaultdict(list)
    for run in sample_runs:
        if run["model"] == model:
            drawn[run["task_id"]].append(first_code(run))
    greedy = {run["task_id"]: first_code(run) for run in greedy_runs
              if run["model"] == model and run["condition"] == "one_shot"}
    pools = {}
    for task, codes in drawn.items():
        if len(codes) >= samples and task in greedy:
            pool = pools[task] = Pool(greedy=collections.Counter({greedy[task]: 1}))
            pool.weights.update([greedy[task], *codes[:samples]])
    return pools


def rule_reading(readings: dict[str, dict[str, bool]]) -> dict:
    """The declared rule over per-problem readings: turned, broken, and whether it is met."""
    turned = sorted(task for task, r in readings.items() if r["greedy_visible_only"] and r["vote"])
    broken = sorted(task for task, r in readings.items() if r["greedy"] and not r["vote"])
    return {"problems": len(readings),
            "greedy_visible_only": sum(r["greedy_visible_only"] for r in readings.values()),
            "greedy": sum(r["greedy"] for r in readings.values()), "vote": sum(r["vote"] for r in readings.values()),
            "perfect_chooser": sum(r["perfect_chooser"] for r in readings.values()),
            "turned": turned, "broken": broken, "margin": RULE_MARGIN, "met": len(turned) - len(broken) >= RULE_MARGIN}


def code_key(task_id: str, code: str) -> str:
    return f"{task_id} {hashlib.sha256(code.encode()).hexdigest()[:16]}"


async def judge(problem: Problem, codes: list[str], sandbox: Sandbox) -> dict[str, dict]:
    """Each of `codes` judged by vote_runner.py: loads, visible, hidden, behaviour (a digest of
    its returns). A candidate that kills the runner is judged a crash and the rest run again."""
    rows: dict[str, dict] = {}
    remaining = list(codes)
    while remaining:
        spec = {"entry_point": problem.entry_point, "visible_tests": problem.visible_tests,
                "hidden_test": problem.hidden_test, "reference": problem.reference,
                "candidates": remaining}
        result = await sandbox.arun(Job(
            files={"runner.py": RUNNER.read_text(encoding="utf-8"), "problem.json": json.dumps(spec)},
            python_args=["runner.py"], timeout_s=JOB_TIMEOUT_S, report=True,
            read_only=frozenset({"runner.py", "problem.json"})))
        started = None
        for line in result.report.splitlines():
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue
            if item.get("start"):
                started = item["index"]
            elif isinstance(item.get("index"), int) and 0 <= item["index"] < len(remaining):
                outputs = json.dumps(item["outputs"]).encode()
                rows[remaining[item["index"]]] = {
                    "loads": item["loads"], "visible": item["visible"], "hidden": item["hidden"],
                    "behaviour": hashlib.sha256(outputs).hexdigest()[:16] if item["loads"] else "!load"}
        if started is None:
            raise RuntimeError(f"{problem.task_id}: the runner failed before any candidate: {result.stderr[-400:]}")
        left = [code for code in remaining if code not in rows]
        if left and remaining[started] not in rows:
            rows[remaining[started]] = {"loads": False, "visible": False, "hidden": False, "behaviour": "!crashed"}
        remaining = [code for code in left if code not in rows]
    return rows


def problem_reading(pool: Pool, rows: dict[str, dict]) -> dict[str, bool]:
    """One problem: what the greedy attempt, the vote, a perfect chooser and any candidate get."""
    groups: collections.Counter[str] = collections.Counter()
    passes: dict[str, bool] = {}
    for code, weight in pool.weights.items():
        row = rows[code]
        if row["visible"]:
            groups[row["behaviour"]] += weight
            passes[row["behaviour"]] = passes.get(row["behaviour"], False) or row["hidden"]
    top = max(groups.values(), default=0)
    tied = [b for b, weight in groups.items() if weight == top]
    greedy = rows[pool.greedy.most_common(1)[0][0]] if pool.greedy else {"visible": False, "hidden": False}
    # The vote as the loop would cast it: a tie that includes the greedy code's group keeps it.
    kept = [greedy["behaviour"]] if greedy["visible"] and greedy.get("behaviour") in tied else tied
    return {
        "greedy": greedy["hidden"], "greedy_visible_only": greedy["visible"] and not greedy["hidden"],
        "vote": bool(kept) and all(passes[b] for b in kept),
        "vote_visible_only": bool(kept) and not all(passes[b] for b in kept),
        "vote_best": any(passes[b] for b in tied), "vote_worst": bool(tied) and all(passes[b] for b in tied),
        "perfect_chooser": any(rows[c]["hidden"] for c in pool.weights if rows[c]["visible"]),
        "any_candidate": any(rows[c]["hidden"] for c in pool.weights),
    }


def summary(readings: dict[str, dict[str, bool]]) -> dict:
    """Counts of each reading over all problems and per slice."""
    parts: dict[str, dict] = {}
    for part in ("all", "tuning", "report"):
        chosen = [r for task, r in readings.items() if part in ("all", slice_of(task))]
        parts[part] = {"problems": len(chosen), **{key: sum(r[key] for r in chosen) for key in readings[next(iter(readings))]}}
    return parts


def runner_agreement(pools: dict[str, Pool], rows: dict[str, dict]) -> dict[str, int]:
    """How often the runner's visible and hidden verdicts on a run's final code agree with its record."""
    counts = collections.Counter()
    for pool in pools.values():
        for code, visible, hidden in pool.finals:
            if code in rows:
                counts["finals"] += 1
                counts["visible_agrees"] += rows[code]["visible"] == visible
                counts["hidden_agrees"] += rows[code]["hidden"] == hidden
    return dict(counts)


async def judged_rows(problems: list[Problem], pools: dict[str, dict[str, Pool]], path: Path) -> dict[str, dict]:
    """Every candidate of `pools` judged, keyed by code_key; new ones appended to `path`."""
    stored = {item.pop("key"): item for item in json_lines(path)}
    sandbox = sandbox_for(Context(sandbox="local"))
    judged: dict[str, dict] = {}
    for number, problem in enumerate(problems, 1):
        codes = sorted({code for by_task in pools.values() for code in by_task.get(problem.task_id, Pool()).weights})
        new = [code for code in codes if code_key(problem.task_id, code) not in stored]
        if new:
            fresh = await judge(problem, new, sandbox)
            with path.open("a", encoding="utf-8") as handle:
                for code, row in fresh.items():
                    handle.write(json.dumps({"key": code_key(problem.task_id, code), **row}) + "\n")
            stored.update({code_key(problem.task_id, code): row for code, row in fresh.items()})
        judged.update({code: stored[code_key(problem.task_id, code)] for code in codes})
        print(f"[{number}/{len(problems)}] {problem.task_id}: {len(codes)} candidates, {len(new)} judged now", flush=True)
    return judged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"results folder (default {RESULTS})")
    parser.add_argument("--limit", type=int, default=None, help="the first N problems only")
    parser.add_argument("--suite", default="humaneval", choices=["humaneval", "mbpp"])
    parser.add_argument("--data", type=Path, default=None, help="with --suite mbpp: MBPP's mbpp.jsonl (else $CODEHEAL_MBPP_FILE)")
    parser.add_argument("--rows", type=Path, default=None,
                        help="where judged candidates are kept (default results/vote_ceiling-rows.jsonl, "
                             "-mbpp-rows.jsonl for MBPP)")
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    parser.add_argument("--rule", action="store_true", help="read the samples runs' declared rule (see above)")
    parser.add_argument("--model", default="local-1.5b", help="with --rule: the model sampled")
    parser.add_argument("--greedy", type=Path, help="with --rule: the folder of the model's one_shot records")
    parser.add_argument("--samples", type=Path, help="with --rule: vote_samples.py's folder")
    parser.add_argument("--per-problem", type=int, default=4, help="with --rule: samples a problem needs (default 4)")
    args = parser.parse_args()
    problems = load_suite(args.suite, args.data)[:args.limit]
    args.rows = args.rows or RESULTS / ("vote_ceiling-rows.jsonl" if args.suite == "humaneval" else "vote_ceiling-mbpp-rows.jsonl")
    if args.rule:
        if args.greedy is None or args.samples is None:
            parser.error("--rule needs --greedy and --samples")
        pools = rule_pools(json_lines(args.greedy / f"{args.suite}.jsonl"), json_lines(args.samples / f"{args.suite}.jsonl"),
                           args.model, args.per_problem)
        chosen = [p for p in problems if p.task_id in pools]
        rows = asyncio.run(judged_rows(chosen, {args.model: pools}, args.rows))
        readings = {p.task_id: problem_reading(pools[p.task_id], rows) for p in chosen}
        result = {"model": args.model, **rule_reading(readings), "problems_read": readings}
        print(json.dumps({k: v for k, v in result.items() if k != "problems_read"}))
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        return
    every_pool = candidate_pools(read_runs(args.results, args.suite))
    pools = {m: every_pool[m] for m in MODELS if m in every_pool}
    problems = [p for p in problems if any(p.task_id in by_task for by_task in pools.values())]
    rows = asyncio.run(judged_rows(problems, pools, args.rows))
    result = {}
    for model in MODELS:
        by_task = {p.task_id: pools[model][p.task_id] for p in problems if p.task_id in pools.get(model, {})}
        readings = {task: problem_reading(pool, rows) for task, pool in by_task.items()}
        result[model] = {
            "candidates": sum(len(pool.weights) for pool in by_task.values()),
            "weight": sum(sum(pool.weights.values()) for pool in by_task.values()),
            "runner_agreement": runner_agreement(by_task, rows),
            "readings": summary(readings) if readings else {},
            "problems": readings,
        }
        every = result[model]["readings"].get("all", {})
        print(f"{model}: {result[model]['candidates']} candidates; " + ", ".join(f"{k} {v}" for k, v in every.items()))
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
