"""What the hidden check costs without a model: HumanEval's reference solutions (the canonical
ones) through the hidden check (codeheal_bench.hidden: inputs in the local sandbox, outputs
compared on the host), one problem at a time. Writes the seconds per problem, the hidden
passes and the machine's load (os.getloadavg before and after) as JSON.

Run from a checkout, for the code of that checkout or another one put first on the path:

    .venv/bin/python codeheal_bench/hidden_cost.py --out benchmarks/results/hidden_cost-after.json
    PYTHONPATH=/path/to/other/checkout .venv/bin/python codeheal_bench/hidden_cost.py --out ...
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import time
from pathlib import Path

from codeheal_bench import hidden
from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.problems import load_problems


def _commit(folder: Path) -> str:
    try:
        return subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


async def measure(limit: int, part: str) -> dict:
    """The references of the first `limit` problems of slice `part` through the hidden check."""
    root = Path(hidden.__file__).resolve().parent.parent  # the checkout the code came from
    problems = load_problems(limit, part)  # type: ignore[arg-type]
    load_before = os.getloadavg()
    rows = []
    for problem in problems:
        started = time.perf_counter()
        verdict = await hidden_verdict(problem, problem.reference)
        rows.append({"task_id": problem.task_id, "seconds": round(time.perf_counter() - started, 3),
                     "passed": verdict.passed, "error": verdict.error})
    seconds = sum(row["seconds"] for row in rows)
    return {
        "codeheal": str(root),
        "commit": _commit(root),
        "slice": part,
        "problems": len(rows),
        "hidden_passes": sum(row["passed"] for row in rows),
        "seconds_per_problem": round(seconds / max(len(rows), 1), 3),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--slice", default="tuning", choices=["all", "tuning", "report"])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    result = asyncio.run(measure(args.limit, args.slice))
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{result['commit']}: {result['hidden_passes']}/{result['problems']} hidden passes, "
          f"{result['seconds_per_problem']} s per problem, load {result['load_before']} -> {result['load_after']}")


if __name__ == "__main__":
    main()
