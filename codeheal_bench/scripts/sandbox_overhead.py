"""What isolation costs per evaluation: median and p95 of

  (a) a bare `python -c pass` subprocess,
  (b) pytest running one trivial passing test with no sandbox (the test's own run time),
  (c) the local sandbox running that test (bubblewrap when present),
  (d) the evaluator node end to end (the graph with starting code, no model).

Writes benchmarks/results/sandbox_overhead.json. Usage: python codeheal_bench/scripts/sandbox_overhead.py [runs]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from codeheal import Context, build_graph
from codeheal.evaluation.jobs import make_job
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import REPORT_FD_ENV

CODE = "def add(a, b):\n    return a + b\n"
TESTS = "assert add(2, 3) == 5\n"
RESULT = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "sandbox_overhead.json"


def timed(action: Callable[[], object], runs: int) -> dict[str, float]:
    """Median and p95 wall-clock milliseconds of `action` over `runs` runs (after one warm-up)."""
    action()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return {
        "median_ms": round(statistics.median(samples), 1),
        "p95_ms": round(samples[max(0, int(len(samples) * 0.95) - 1)], 1),
        "runs": runs,
    }


def main(runs: int = 50) -> dict:
    sandbox = LocalSandbox()
    job = make_job(CODE, TESTS, timeout_s=10)
    graph = build_graph(llm=None).compile()
    context = Context(max_attempts=1, timeout_s=10)

    with tempfile.TemporaryDirectory() as bare_workspace:
        for name, content in job.files.items():
            Path(bare_workspace, name).write_text(content)
        report = os.open(os.devnull, os.O_WRONLY)
        bare_env = {"PATH": os.environ.get("PATH", ""), **job.env, REPORT_FD_ENV: str(report)}

        def bare_pytest() -> None:
            subprocess.run([sys.executable, *job.python_args], cwd=bare_workspace, env=bare_env,
                           check=True, capture_output=True, pass_fds=(report,))

        def evaluator() -> None:
            out = graph.invoke({"task": "add", "tests": TESTS, "code": CODE}, context=context)
            assert out["status"] == "passed", out

        results = {
            "isolation": sandbox.isolation,
            "cpus": os.cpu_count(),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "bare_python": timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), runs),
            "bare_pytest": timed(bare_pytest, runs),
            "sandbox_pytest": timed(lambda: sandbox.run(job), runs),
            "evaluator_end_to_end": timed(evaluator, runs),
        }
    results["evaluator_minus_bare_pytest_ms"] = round(
        results["evaluator_end_to_end"]["median_ms"] - results["bare_pytest"]["median_ms"], 1
    )
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50), indent=2))
