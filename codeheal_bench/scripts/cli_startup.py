"""How fast do codeheal's small commands answer? `--version`, `--help`, `threads`, `show`,
`model status` and an input error (a tests file that does not exist), each run `--runs` times
as a fresh process (`python -m codeheal`): the median wall time, and the modules each imports
(`python -X importtime`), with LangChain, LangGraph and OpenAI counted apart. The checkpointer
and the model servers' runtime directory are fresh temporary ones (an empty history, no
server), so the commands measure codeheal, not a large database. Writes
benchmarks/results/cli_startup.json with the machine's load.

    .venv/bin/python codeheal_bench/scripts/cli_startup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "cli_startup.json"
HEAVY = ("langchain", "langchain_core", "langchain_openai", "langgraph", "openai")


def commands(folder: Path) -> dict[str, list[str]]:
    checkpoints = str(folder / "c.sqlite")
    (folder / "c.sqlite").touch()
    return {
        "codeheal --version": ["--version"],
        "codeheal --help": ["--help"],
        "codeheal threads": ["threads", "--checkpointer", checkpoints],
        "codeheal show THREAD": ["show", "nothread", "--checkpointer", checkpoints],
        "codeheal model status": ["model", "status"],
        "codeheal solve (no tests file)": ["solve", "add two numbers", "--tests", str(folder / "missing.py")],
    }


def timed(args: list[str], env: dict[str, str]) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "codeheal", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - began


def imported(args: list[str], env: dict[str, str]) -> dict[str, int]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "codeheal", *args], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    names = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")][1:]
    return {"modules": len(names), "heavy": sum(name.split(".")[0] in HEAVY for name in names)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "runtime").mkdir(mode=0o700)
        env = {**os.environ, "XDG_RUNTIME_DIR": str(folder / "runtime")}
        results = {}
        for name, command in commands(folder).items():
            timed(command, env)  # the files it reads in the page cache
            runs = [timed(command, env) for _ in range(args.runs)]
            results[name] = {"median_ms": round(statistics.median(runs) * 1000, 1), **imported(command, env)}
            print(f"{name:32} {results[name]['median_ms']:8.1f} ms  {results[name]['modules']} modules "
                  f"({results[name]['heavy']} of LangChain, LangGraph, OpenAI)", flush=True)
    start = statistics.median(_python_start() for _ in range(args.runs))
    args.out.write_text(json.dumps({
        "runs": args.runs, "commands": results, "python_start_ms": round(start * 1000, 1),
        "cpus": len(os.sched_getaffinity(0)), "load_average_1m": round(os.getloadavg()[0], 2),
    }, indent=2) + "\n")


def _python_start() -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=False)
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
