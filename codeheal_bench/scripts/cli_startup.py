"""How fast do codeheal's small commands answer? `--version`, `--help`, `threads`, `show`,
`model status` and an input error (a tests file that does not exist), each run `--runs` times
as a fresh process (`python -m codeheal`): the median wall time, and the modules each imports
(`python -X importtime`), with LangChain, LangGraph and OpenAI counted apart. The checkpointer
and the model servers' runtime directory are fresh temporary ones (an empty history, no
server), so the commands measure codeheal, not a large database. With `--baseline DIR` (a
copy of another commit's `codeheal/` package, e.g. `git archive COMMIT codeheal | tar -x -C
DIR`) the same commands are measured on it too, in turns, under the same load. Writes
benchmarks/results/cli_startup.json with the machine's load.

    .venv/bin/python codeheal_bench/scripts/cli_startup.py [--runs 5] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """The wall seconds and the CPU seconds (user + system) of one run of `codeheal ARGS`:
    on a loaded machine the CPU time is what a quiet one would wait."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "codeheal", *args], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, cwd=env["XDG_RUNTIME_DIR"])  # -m puts the cwd first
    wall = time.perf_counter() - began
    now = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime


def imported(args: list[str], env: dict[str, str]) -> dict[str, int]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "codeheal", *args], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False,
                          cwd=env["XDG_RUNTIME_DIR"])
    names = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")][1:]
    return {"modules": len(names), "heavy": sum(name.split(".")[0] in HEAVY for name in names)}


def measure(folder: Path, env: dict[str, str], runs: int) -> dict[str, dict]:
    """Each command's median wall time and the modules it imports."""
    results = {}
    for name, command in commands(folder).items():
        timed(command, env)  # the files it reads in the page cache
        walls, cpus = zip(*(timed(command, env) for _ in range(runs)))
        results[name] = {"median_ms": round(statistics.median(walls) * 1000, 1),
                         "median_cpu_ms": round(statistics.median(cpus) * 1000, 1), **imported(command, env)}
        print(f"{env.get('PYTHONPATH', '.'):24.24} {name:32} {results[name]['median_ms']:8.1f} ms "
              f"({results[name]['median_cpu_ms']:.0f} ms CPU)  "
              f"{results[name]['modules']} modules ({results[name]['heavy']} of LangChain, LangGraph, OpenAI)", flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--baseline", type=Path, help="a folder holding another commit's codeheal/ package")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        (folder / "runtime").mkdir(mode=0o700)
        env = {**os.environ, "XDG_RUNTIME_DIR": str(folder / "runtime"), "PYTHONPATH": str(Path.cwd())}
        found = {"commands": measure(folder, env, args.runs)}
        if args.baseline:
            found["baseline"] = measure(folder, {**env, "PYTHONPATH": str(args.baseline.resolve())}, args.runs)
    start = statistics.median(_python_start() for _ in range(args.runs))
    args.out.write_text(json.dumps({
        "runs": args.runs, **found, "python_start_ms": round(start * 1000, 1),
        "cpus": len(os.sched_getaffinity(0)), "load_average_1m": round(os.getloadavg()[0], 2),
    }, indent=2) + "\n")


def _python_start() -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=False)
    return time.perf_counter() - began


if __name__ == "__main__":
    main()
