"""How long does the mutation screen take, with no model? Heals each program with `codeheal
fix` (2 attempts: the project as it is, then the screen; a model that has no reply, so a
screen that finds nothing ends the run) and records wall seconds, whether it healed, the
candidates the screen tested, the sandbox jobs run and their seconds (summed: jobs in a batch
run side by side). The codeheal timed is the one
PYTHONPATH imports, so the same script times two checkouts back to back.

    PYTHONPATH=. .venv/bin/python codeheal_bench/scripts/screen_time.py --out FILE [--only NAME ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from codeheal import Context, build_graph
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import Job, RunResult, SyncFace
from codeheal_bench.quixbugs import load_quixbugs

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "tests" / "project" / "fixtures" / "shop"


class Counting(SyncFace):
    """A LocalSandbox that counts its jobs and their seconds."""

    def __init__(self) -> None:
        self.inner = LocalSandbox()
        self.jobs = 0
        self.seconds = 0.0

    async def arun(self, job: Job) -> RunResult:
        self.jobs += 1
        result = await self.inner.arun(job)
        self.seconds += result.seconds
        return result


def heal(files: dict[str, str], test_command: str) -> dict:
    """One run on a fresh copy of `files`."""
    sandbox = Counting()
    graph = build_graph(llm=GenericFakeChatModel(messages=iter(())), sandbox=sandbox).compile()
    with tempfile.TemporaryDirectory(prefix="screen-") as folder:
        for name, text in files.items():
            (Path(folder) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / name).write_text(text, encoding="utf-8")
        started = time.perf_counter()
        try:
            result = graph.invoke({"project": folder, "test_command": test_command}, context=Context(max_attempts=2))
        except Exception as exc:  # noqa: BLE001 (the fake model has no reply: the screen found nothing)
            return {"wall_s": round(time.perf_counter() - started, 2), "healed": False, "error": type(exc).__name__,
                    "jobs": sandbox.jobs, "sandbox_s": round(sandbox.seconds, 2)}
        wall = time.perf_counter() - started
    screen = result["history"][1] if len(result["history"]) > 1 else {}
    return {"wall_s": round(wall, 2), "healed": result["status"] == "passed",
            "screen_tested": screen.get("candidates_tested"), "jobs": sandbox.jobs,
            "sandbox_s": round(sandbox.seconds, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", nargs="*", default=["quicksort", "bucketsort", "lcs_length"])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    problems = {p.name: p for p in load_quixbugs()}
    shop = {str(p.relative_to(SHOP)): p.read_text(encoding="utf-8") for p in SHOP.rglob("*") if p.is_file()
            and "__pycache__" not in p.parts}
    subjects = {"shop": (shop, "python -m pytest -q"),
                **{name: (problems[name].files, problems[name].test_command) for name in args.only}}
    rows = {}
    for name, (files, command) in subjects.items():
        load = os.getloadavg()[0]
        runs = [heal(files, command) for _ in range(args.runs)]
        rows[name] = {"load_average_1m": round(load, 2), "median_wall_s": statistics.median(r["wall_s"] for r in runs),
                      "runs": runs}
        print(name, json.dumps(rows[name]), flush=True)
    args.out.write_text(json.dumps({"cpus": os.cpu_count(), "programs": rows}, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
