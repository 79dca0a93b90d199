"""Does choosing by generated checks (Context.select_samples) help when the visible tests are weak?

The problems: HumanEval problems whose visible tests have fewer than 2 checks (no usable example,
or one), in one slice (tuning: even ids, where the default is chosen; report: odd ids). Each
starts, as in `codeheal-bench humaneval`, from the one_shot record's code in
benchmarks/results/humaneval-3attempts/humaneval.jsonl as attempt 1, and runs with the resample condition's settings
(the library's defaults, no feedback), the budget of that run (3000 tokens) and
`select_samples=K`. Where attempt 1 passed the visible tests the loop used to stop; now it draws
K more candidates, asks for generated checks and keeps the candidate most others agree with. The
hidden check scores the final code once, as before.

Rows per (slice, K): the hidden pass rate of the final code next to one_shot's on the same
problems, how often selection ran, visible-pass / hidden-fail cases before and after, and the
tokens it added. Records go to benchmarks/results/selection.jsonl as they arrive (a rerun skips
the finished ones); the summary to benchmarks/results/selection.json.

    .venv/bin/python benchmarks/selection.py --slice tuning --samples 4
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import asdict, replace
from pathlib import Path

from codeheal import build_graph

from codeheal_bench.humaneval import BenchConfig, condition_context, run_problem
from codeheal_bench.problems import load_problems

RESULTS = Path(__file__).parent / "results"
RECORDS = RESULTS / "selection.jsonl"
BUDGET = 3000
WEAK_BELOW = 2
"""Visible tests with fewer checks than this are weak (the problems this script runs)."""


def in_slice(task_id: str, name: str) -> bool:
    number = int(task_id.split("/")[1])
    return name == "all" or (number % 2 == 0) == (name == "tuning")


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


async def run(slice_name: str, samples: int) -> None:
    seeds = {r["task_id"]: r for r in load_jsonl(RESULTS / "humaneval-3attempts" / "humaneval.jsonl") if r["condition"] == "one_shot"}
    done = {(r["task_id"], r["select_samples"]) for r in load_jsonl(RECORDS)}
    problems = [
        p for p in load_problems(None)
        if in_slice(p.task_id, slice_name) and max(p.visible_count, 1) < WEAK_BELOW and p.task_id in seeds
        and seeds[p.task_id]["status"] == "passed"
    ]
    config = BenchConfig(out_dir=RESULTS, model="local-0.5b", max_tokens=BUDGET)
    context = replace(condition_context("resample", config), select_samples=samples)
    graph = build_graph().compile(name="codeheal")
    for number, problem in enumerate(problems, 1):
        if (problem.task_id, samples) in done:
            continue
        seed = seeds[problem.task_id]
        record = await run_problem(graph, problem, "resample", context, config, seed, {})
        selection = next((a for a in record["attempt_log"] if a.get("selection")), None)
        row = {
            "task_id": problem.task_id, "select_samples": samples, "visible_count": problem.visible_count,
            "context": asdict(context), "one_shot_status": seed["status"], "one_shot_hidden": seed["hidden_passed"],
            "status": record["status"], "hidden_passed": record["hidden_passed"], "tokens": record["tokens"],
            "one_shot_tokens": seed["tokens"], "selection": selection and selection["selection"],
            "seconds": round(record["finished_at"] - record["started_at"], 2),
        }
        with RECORDS.open("a") as out:
            out.write(json.dumps(row) + "\n")
        print(f"[{number}/{len(problems)}] {problem.task_id} selection={bool(row['selection'])} "
              f"{row['seconds']} s", flush=True)


def summarise() -> dict:
    rows = load_jsonl(RECORDS)
    summary: dict = {}
    for key in sorted({(in_slice(r["task_id"], "tuning") and "tuning" or "report", r["select_samples"]) for r in rows}):
        group = [r for r in rows if (in_slice(r["task_id"], "tuning") and "tuning" or "report", r["select_samples"]) == key]
        summary[f"{key[0]} K={key[1]}"] = {
            "problems": len(group),
            "selection_ran": sum(bool(r["selection"]) for r in group),
            "one_shot_hidden_passed": sum(r["one_shot_hidden"] for r in group),
            "hidden_passed": sum(r["hidden_passed"] for r in group),
            "visible_pass_hidden_fail_before": sum(r["one_shot_status"] == "passed" and not r["one_shot_hidden"] for r in group),
            "visible_pass_hidden_fail_after": sum(r["status"] == "passed" and not r["hidden_passed"] for r in group),
            "tokens_added": sum(r["tokens"] - r["one_shot_tokens"] for r in group),
            "median_seconds": sorted(r["seconds"] for r in group)[len(group) // 2],
        }
    (RESULTS / "selection.json").write_text(json.dumps({"budget": BUDGET, "rows": summary}, indent=2) + "\n")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slice", choices=("tuning", "report", "all"), default="tuning")
    parser.add_argument("--samples", type=int, default=4)
    args = parser.parse_args()
    asyncio.run(run(args.slice, args.samples))
    print(json.dumps(summarise(), indent=2))


if __name__ == "__main__":
    main()
