"""How fast the `codeheal` command starts: wall time of `codeheal --help`, `codeheal solve
--help` and `codeheal graph --mermaid` (median of N runs), and how many modules `--help`
imports. Writes benchmarks/results/cli_startup.json.

    python benchmarks/cli_startup.py [--runs 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "cli_startup.json"
COMMANDS = {
    "codeheal --help": ["--help"],
    "codeheal solve --help": ["solve", "--help"],
    "codeheal graph --mermaid": ["graph", "--mermaid"],
}
MODULE_COUNT = (
    "import sys, runpy; sys.argv = ['codeheal', '--help']\n"
    "try:\n    runpy.run_module('codeheal.cli', run_name='__main__')\n"
    "except SystemExit:\n    pass\nprint(len(sys.modules), file=sys.stderr)"
)


def median_ms(argv: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, capture_output=True, check=True)
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    entry = [sys.executable, "-m", "codeheal.cli"]
    result = {
        "runs": args.runs,
        "median_ms": {name: median_ms([*entry, *rest], args.runs) for name, rest in COMMANDS.items()},
        "modules_imported_by_help": int(subprocess.run(
            [sys.executable, "-c", MODULE_COUNT], capture_output=True, text=True, check=True
        ).stderr.split()[-1]),
        "python_start_ms": median_ms([sys.executable, "-c", "pass"], args.runs),
        "cpus": os.cpu_count(),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
