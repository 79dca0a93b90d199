"""Per-attempt overhead of the evaluator for a trivial passing test.

Times 20 runs (after one warm-up) of
  - the graph with a passing starting `code` (prepare + evaluator, no model call), and
  - LocalSandbox.run of the same job directly,
and writes the median and p95 of each to benchmarks/results/evaluator_overhead.json.

Run: .venv/bin/python benchmarks/evaluator_overhead.py
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from codeheal import Context, build_graph
from codeheal.evaluation.jobs import make_job
from codeheal.sandboxes import LocalSandbox

RUNS = 20
CODE = "def add(a, b):\n    return a + b\n"
TESTS = "assert add(2, 3) == 5\n"
RESULT = Path(__file__).parent / "results" / "evaluator_overhead.json"


def timed(run: Callable[[], object], runs: int = RUNS) -> list[float]:
    """Wall-clock seconds of `runs` calls, after one uncounted warm-up call."""
    run()
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - started)
    return seconds


def summary(seconds: list[float]) -> dict[str, float]:
    """Median and p95 in milliseconds."""
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[-1]
    return {"median_ms": round(statistics.median(seconds) * 1000, 1), "p95_ms": round(p95 * 1000, 1)}


def main() -> None:
    graph = build_graph().compile()
    context = Context(timeout_s=10)

    def through_graph() -> None:
        result = graph.invoke({"task": "Add two numbers.", "tests": TESTS, "code": CODE}, context=context)
        assert result["status"] == "passed", result

    sandbox = LocalSandbox()
    job = make_job(CODE, TESTS, timeout_s=10)

    def sandbox_only() -> None:
        assert sandbox.run(job).exit_code == 0

    load_before = os.getloadavg()[0]
    report = {
        "runs": RUNS,
        "graph_invoke_with_starting_code": summary(timed(through_graph)),
        "local_sandbox_run": summary(timed(sandbox_only)),
        "isolation": sandbox.isolation,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_1m": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
