"""The fixed cost of one test run in the project form (start to first test) on the 20 shared
QuixBugs programs: each program's project job (its test command, codeheal's report plugin, the
real sandbox) run with `--collect-only`, so the time is interpreter start, pytest start-up,
plugin loading and collection (the test module and the program imported), up to the point
where the first test would run.

Two interpreters, as `codeheal fix` picks them for a project without a virtualenv of its own:
the sandbox's own (nothing active) and codeheal's virtualenv (active as $VIRTUAL_ENV). Each
with plugin autoload as the project job sets it now (off on codeheal's environment) and with
autoload on, as before, when pytest loads the plugins of codeheal's dependencies.

Writes the isolation's entry of benchmarks/results/fixed_test_cost.json. Usage:
    python codeheal_bench/scripts/fixed_test_cost.py [--runs N] [--isolation bwrap|basic]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from pathlib import Path

from codeheal.forms.project.job import project_job
from codeheal.forms.project.task import parse_test_command
from codeheal.sandboxes import LocalSandbox

from codeheal_bench.quixbugs import load_quixbugs

RESULT = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "fixed_test_cost.json"
TARGET_S = 0.5


def measure(sandbox: LocalSandbox, python: str | None, autoload: bool, runs: int) -> dict:
    """Median seconds to the first test over the programs (each the median of `runs` runs)."""
    per_program = {}
    for problem in load_quixbugs():
        job = project_job(problem.files, parse_test_command(f"{problem.test_command} --collect-only"), 60, python=python)
        if autoload:
            job = dataclasses.replace(job, env={})
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            result = sandbox.run(job)
            samples.append(time.perf_counter() - started)
            if result.exit_code != 0:
                raise SystemExit(f"{problem.name}: collection failed: {result.stdout[-500:]}")
        per_program[problem.name] = round(statistics.median(samples), 3)
    return {"median_s": round(statistics.median(per_program.values()), 3),
            "max_s": max(per_program.values()), "programs": per_program}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per program and setting (default 3)")
    parser.add_argument("--isolation", default="bwrap", choices=("bwrap", "basic"))
    args = parser.parse_args()
    sandbox = LocalSandbox(isolation=args.isolation)
    load_before = os.getloadavg()[0]
    settings = {}
    for interpreter, python in (("sandbox's own", None), ("codeheal's virtualenv", sys.executable)):
        for autoload in (False, True):
            name = f"{interpreter}, autoload {'on (before)' if autoload else 'as set now'}"
            settings[name] = measure(sandbox, python, autoload, args.runs)
            print(f"{name}: median {settings[name]['median_s']} s, max {settings[name]['max_s']} s", flush=True)
    now = [s for name, s in settings.items() if "as set now" in name]
    result = json.loads(RESULT.read_text(encoding="utf-8")) if RESULT.exists() else {}
    result[sandbox.isolation] = {
        "cpus": os.cpu_count(), "runs": args.runs,
        "load_average_1m": {"before": round(load_before, 2), "after": round(os.getloadavg()[0], 2)},
        "target_s": TARGET_S,
        "target_met": all(s["median_s"] <= TARGET_S for s in now),
        "settings": settings,
    }
    RESULT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(RESULT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
