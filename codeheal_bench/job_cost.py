"""What one module-form job costs, this checkout against another: a right `add` judged by 20
asserts in the local sandbox (bubblewrap), one job per fresh interpreter, the two checkouts
alternated so that the machine's load falls on both alike. Writes each job's seconds, the
medians and the load average (os.getloadavg) before and after as JSON.

    .venv/bin/python codeheal_bench/job_cost.py --other /path/to/main/tree --out benchmarks/results/hidden_cost/job_cost.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ONE_JOB = """
import time
from codeheal.forms.module.candidate import evaluate_candidate
from codeheal.sandboxes.local import LocalSandbox
tests = "".join(f"assert add({i}, 1) == {i + 1}\\n" for i in range(20))
started = time.perf_counter()
feedback = evaluate_candidate(LocalSandbox(), "def add(a, b):\\n    return a + b\\n", tests, 20.0)
assert feedback["passed"], feedback
print(time.perf_counter() - started)
"""


def one_job(path_first: str | None) -> float:
    env = {**os.environ, "PYTHONPATH": path_first} if path_first else {k: v for k, v in os.environ.items()
                                                                       if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", ONE_JOB], env=env, cwd="/", capture_output=True, text=True, check=True)
    return round(float(done.stdout.strip().splitlines()[-1]), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", required=True, help="the other checkout's root (put first on PYTHONPATH)")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    load_before = os.getloadavg()
    other, this = [], []
    for _ in range(args.rounds):
        other.append(one_job(args.other))
        this.append(one_job(None))
    result = {"other": args.other, "this": str(Path(__file__).resolve().parent.parent),
              "other_median_s": statistics.median(other), "this_median_s": statistics.median(this),
              "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
              "other_s": other, "this_s": this}
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"other {result['other_median_s']} s, this {result['this_median_s']} s per job (medians of {args.rounds}), "
          f"load {result['load_before']} -> {result['load_after']}")


if __name__ == "__main__":
    main()
