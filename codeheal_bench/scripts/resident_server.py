"""The resident model server, measured on the default path (the embedded model, no flags):

- interrupt: Ctrl-C (SIGINT) while the model writes a reply, in both forms (`solve` on the
  demo, `fix` on tests/project/fixtures/ranges), N tries each: seconds from the signal to the
  run's exit, its exit code and line, and seconds until the server's slot is free again;
- demo: the README's demo cold (no server running) then warm, N runs, wall seconds each and
  what the run's --json breakdown says of the server;
- memory: two demo runs at once: the peak resident set of the server and of each run;
- startup: `codeheal --help`, `codeheal --version` and an input error, wall seconds.

Uses the user's own resident server (stopped first, so the first demo run is cold, and at the
end). Run it under the model lock on a quiet machine; it writes
benchmarks/results/resident_server.json (or --out).

    flock /tmp/codeheal-model.lock .venv/bin/python codeheal_bench/scripts/resident_server.py [--tries 10] [--warm 4]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from codeheal.llm.discovery import (
    Resident,
    read_state,
    resident_set_bytes,
    running,
    runtime_dir,
    server_key,
    slots,
    stop,
)
from codeheal.llm.server import model_file

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results" / "resident_server.json"
CODEHEAL = str(Path(sys.executable).parent / "codeheal")
DEMO = ["solve", "@examples/fizzbuzz/task.md", "--tests", "examples/fizzbuzz/tests.py", "--max-attempts", "5"]
RANGES = ROOT / "tests" / "project" / "fixtures" / "ranges"


def server() -> Resident:
    """The default model's resident server (started by a run before)."""
    resident = read_state(runtime_dir() / f"{server_key(model_file('local')[0])}.json")
    assert resident is not None, "no resident server for the default model"
    return resident


def stop_all() -> None:
    for resident in running():
        stop(resident)


def interrupt_once(command: list[str], cwd: Path, checkpointer: Path) -> dict:
    run = subprocess.Popen([CODEHEAL, *command, "--checkpointer", str(checkpointer)], cwd=cwd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    resident, deadline = None, time.monotonic() + 300
    while time.monotonic() < deadline and run.poll() is None:
        resident = resident or next(iter(running()), None)
        if resident is not None and any(slot.written for slot in slots(resident) or []):
            break
        time.sleep(0.02)
    if run.poll() is not None or resident is None:
        return {"missed": "the run ended before the model wrote", "exit": run.returncode}
    sent = time.monotonic()
    run.send_signal(signal.SIGINT)
    _, err = run.communicate(timeout=60)
    exited = time.monotonic() - sent
    while any(slot.busy for slot in slots(resident) or []) and time.monotonic() - sent < 120:
        time.sleep(0.02)
    return {"exit": run.returncode, "seconds_to_exit": round(exited, 3),
            "seconds_to_free_slot": round(time.monotonic() - sent, 2),
            "line": "interrupted; continue with: codeheal resume" in err}


def interrupts(tries: int) -> dict:
    found = {}
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for form, command, cwd in (("solve", DEMO, ROOT),
                                   ("fix", ["fix", "--test", "python -m pytest -q", "--mutants", "0"], work / "ranges")):
            records = []
            for number in range(tries):
                if form == "fix":
                    shutil.rmtree(work / "ranges", ignore_errors=True)
                    shutil.copytree(RANGES, work / "ranges")
                records.append(interrupt_once(command, cwd, work / f"{form}-{number}.sqlite"))
                print(form, records[-1], file=sys.stderr, flush=True)
            exits = [r["seconds_to_exit"] for r in records if "seconds_to_exit" in r]
            found[form] = {"tries": records, "median_seconds_to_exit": statistics.median(exits) if exits else None,
                           "max_seconds_to_exit": max(exits, default=None),
                           "exit_codes": sorted({r["exit"] for r in records})}
    return found


def demo_run() -> dict:
    started = time.perf_counter()
    done = subprocess.run([CODEHEAL, *DEMO, "--json"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=900,
                          stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    result = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
    spent = (result.get("totals") or {}).get("breakdown") or {}
    return {"wall_s": round(wall, 2), "exit": done.returncode, "status": result.get("status"),
            "attempts": result.get("attempts"), "model_server": spent.get("model_server"),
            "model_start_seconds": spent.get("model_start_seconds"), "breakdown": spent}


def demo(warm: int) -> dict:
    stop_all()
    runs = [demo_run() for _ in range(warm + 1)]
    for run in runs:
        print("demo", {k: v for k, v in run.items() if k != "breakdown"}, file=sys.stderr, flush=True)
    warm_walls = [r["wall_s"] for r in runs[1:]]
    return {"cold": runs[0], "warm": runs[1:], "warm_median_s": statistics.median(warm_walls) if warm_walls else None}


def memory() -> dict:
    """Two demo runs at once on a warm server: peak resident sets, sampled every 0.1 s."""
    demo_run()  # the server is running and has read the demo's prompt once
    resident = server()
    runs = [subprocess.Popen([CODEHEAL, *DEMO], cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(2)]
    peaks = {"server": 0, "run_1": 0, "run_2": 0}
    started = time.perf_counter()

    def sample() -> None:
        while any(run.poll() is None for run in runs):
            for name, pid in (("server", resident.pid), ("run_1", runs[0].pid), ("run_2", runs[1].pid)):
                peaks[name] = max(peaks[name], resident_set_bytes(pid) or 0)
            time.sleep(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    for run in runs:
        run.wait(timeout=900)
    sampler.join()
    return {"peak_rss_mib": {name: round(value / 2**20) for name, value in peaks.items()},
            "exits": [run.returncode for run in runs], "both_done_s": round(time.perf_counter() - started, 1)}


def startup(runs: int) -> dict:
    commands = {"codeheal --help": ["--help"], "codeheal --version": ["--version"],
                "input error, empty task (codeheal solve '' --tests examples/fizzbuzz/tests.py)":
                    ["solve", "", "--tests", "examples/fizzbuzz/tests.py"],
                "input error, missing tests file (codeheal solve add --tests missing.py)":
                    ["solve", "add", "--tests", "missing.py"]}
    found = {}
    for name, argv in commands.items():
        times, codes = [], set()
        for _ in range(runs):
            began = time.perf_counter()
            done = subprocess.run([CODEHEAL, *argv], cwd=ROOT, capture_output=True, check=False)
            times.append(time.perf_counter() - began)
            codes.add(done.returncode)
        found[name] = {"median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3),
                       "exit_codes": sorted(codes)}
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=10, help="interrupts per form")
    parser.add_argument("--warm", type=int, default=4, help="warm demo runs after the cold one")
    parser.add_argument("--parts", nargs="+", default=["startup", "demo", "interrupt", "memory"],
                        choices=["startup", "demo", "interrupt", "memory"])
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    found: dict = json.loads(args.out.read_text()) if args.out.exists() else {}
    measure = {"startup": lambda: startup(10), "demo": lambda: demo(args.warm),
               "interrupt": lambda: interrupts(args.tries), "memory": memory}
    for part in args.parts:
        load = os.getloadavg()[0]
        found[part] = {**measure[part](), "load_average_1m_before": round(load, 2),
                       "load_average_1m_after": round(os.getloadavg()[0], 2)}
        args.out.write_text(json.dumps({**found, "cpus": os.cpu_count()}, indent=2) + "\n")
    stop_all()
    print(json.dumps({part: {k: v for k, v in found[part].items() if not isinstance(v, list | dict)}
                      for part in args.parts}, indent=2))


if __name__ == "__main__":
    main()
