"""How long does the README's demo take? Runs `codeheal solve @examples/fizzbuzz/task.md --tests
examples/fizzbuzz/tests.py --max-attempts 5` (what `make demo` runs after set-up) several
times with the model already assembled, each a fresh process, and records wall seconds,
status, attempts, tokens and where the seconds went (prompt tokens evaluated and reused from
the server's cache, prompt, generation and sandbox seconds, the rest codeheal's own). Writes
benchmarks/results/demo.json (or --out). Run it on a quiet machine; the codeheal it times is
the one PYTHONPATH (else the venv) imports.

    .venv/bin/python codeheal_bench/scripts/demo_time.py [--runs 5] [--out FILE] [--policy NAME]
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

from codeheal import breakdown, lasting_name

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results" / "demo.json"
COMMAND = ["solve", "@examples/fizzbuzz/task.md", "--tests", "examples/fizzbuzz/tests.py", "--max-attempts", "5", "--json"]


def one_run(command: list[str]) -> dict:
    started = time.perf_counter()
    done = subprocess.run([str(Path(sys.executable).parent / "codeheal"), *command], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    wall = time.perf_counter() - started
    result = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    history = result.get("history") or []
    return {
        "wall_s": round(wall, 2), "exit": done.returncode, "status": result.get("status"),
        "attempts": result.get("attempts"), "tokens": sum(a["tokens"] for a in history),
        "completion_tokens": [a.get("completion_tokens", 0) for a in history],
        "prompt_tokens": [a.get("prompt_tokens", 0) for a in history],
        "summaries": [a["summary"][:100] for a in history],
        # timed from outside the process: the overhead includes its start and the model's loading
        "breakdown": breakdown(history, wall),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--policy", help="a policy preset other than the default (codeheal solve --policy)")
    parser.add_argument("--hedge", action="store_true",
                        help="codeheal solve --hedge: the first retry sees the failure in one of its samples")
    args = parser.parse_args()
    command = [*COMMAND, *(["--policy", args.policy] if args.policy else []), *(["--hedge"] if args.hedge else [])]
    load = os.getloadavg()[0]
    runs = []
    for number in range(1, args.runs + 1):
        runs.append(one_run(command))
        print(number, json.dumps(runs[-1]), flush=True)
    healed = [r for r in runs if r["status"] == "passed"]
    summary = {
        "command": "codeheal " + " ".join(command), "model": lasting_name("local"), "cpus": os.cpu_count(), "load_average_1m": round(load, 2),
        "runs": runs, "median_wall_s": statistics.median(r["wall_s"] for r in runs),
        "healed": len(healed), "median_wall_s_healed": statistics.median(r["wall_s"] for r in healed) if healed else None,
    }
    args.out.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in summary.items() if k != "runs"}, indent=2))


if __name__ == "__main__":
    main()
