"""The optional larger local model's one_shot row: `codeheal-bench humaneval`'s one_shot
condition (one greedy attempt, the library's defaults, the same 3000-token budget) with
`model="local-1.5b"` on all 164 problems, one at a time. Needs `codeheal model --get
local-1.5b` first. Records go to benchmarks/results/local_1_5b.jsonl as they arrive (a rerun
skips the finished ones), the summary to benchmarks/results/local_1_5b.json.

    .venv/bin/python benchmarks/larger_model.py [--limit N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
from pathlib import Path

from codeheal import build_graph

from codeheal_bench.humaneval import BenchConfig, condition_context, run_problem
from codeheal_bench.problems import load_problems

RESULTS = Path(__file__).parent / "results"
RECORDS = RESULTS / "local_1_5b.jsonl"
MODEL = "local-1.5b"


def load_records() -> dict[str, dict]:
    if not RECORDS.exists():
        return {}
    return {r["task_id"]: r for r in map(json.loads, RECORDS.read_text().splitlines())}


async def run(limit: int | None) -> None:
    done = load_records()
    config = BenchConfig(out_dir=RESULTS, model=MODEL, max_tokens=3000)
    context = condition_context("one_shot", config)
    graph = build_graph().compile(name="codeheal")
    problems = load_problems(limit)
    for number, problem in enumerate(problems, 1):
        if problem.task_id in done:
            continue
        record = await run_problem(graph, problem, "one_shot", context, config, None, {})
        with RECORDS.open("a") as out:
            out.write(json.dumps(record) + "\n")
        print(f"[{number}/{len(problems)}] {problem.task_id} hidden={record['hidden_passed']}", flush=True)


def summarise() -> dict:
    rows = list(load_records().values())
    walls = [r["finished_at"] - r["started_at"] for r in rows]

    def rate(parity: int) -> float:
        part = [r for r in rows if int(r["task_id"].split("/")[1]) % 2 == parity]
        return round(sum(r["hidden_passed"] for r in part) / len(part), 4) if part else 0.0

    summary = {
        "model": MODEL, "condition": "one_shot", "problems": len(rows), "cpus": os.cpu_count(),
        "passed": sum(r["hidden_passed"] for r in rows),
        "pass_at_1": round(sum(r["hidden_passed"] for r in rows) / len(rows), 4),
        "tuning": rate(0), "report": rate(1),
        "tokens": sum(r["tokens"] for r in rows),
        "median_completion_tokens": statistics.median(r["completion_tokens"] for r in rows),
        "wall_s": round(sum(walls), 1), "median_s_per_problem": round(statistics.median(walls), 2),
    }
    (RESULTS / "local_1_5b.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    asyncio.run(run(args.limit))
    print(json.dumps(summarise(), indent=2))


if __name__ == "__main__":
    main()
