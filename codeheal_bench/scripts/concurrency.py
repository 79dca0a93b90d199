"""Many runs on one event loop: `solve_many` with 50 concurrent runs vs. one after another.

Every run heals `add` in two attempts (3 model calls, 2 real test runs in the local sandbox).
The model is the scripted OpenAI-compatible server from the tests, reached over real HTTP by
ChatOpenAI's async client, answering each call after MODEL_SECONDS (an API model's latency).
Each run is checkpointed (InMemorySaver, durability "sync"). Counts completed, failed and
missing runs, wall time and runs/second of both ways, and writes them to
benchmarks/results/concurrency.json.

Run: .venv/bin/python codeheal_bench/scripts/concurrency.py
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import sys
import time
from pathlib import Path

from langgraph.checkpoint.memory import InMemorySaver

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "helpers"))
from scripted_openai import ADD_TASK, ADD_TESTS, ScriptedServer  # noqa: E402

from codeheal import Context, solve_many  # noqa: E402
from codeheal.batch import BatchItem  # noqa: E402

RUNS = 50
MODEL_SECONDS = 0.3
RESULT = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "concurrency.json"


async def timed_batch(context: Context, concurrency: int) -> dict[str, object]:
    """Run the batch once at `concurrency`; what came back and how fast."""
    requests = [{"task": ADD_TASK, "tests": ADD_TESTS}] * RUNS
    started = time.perf_counter()
    items = await solve_many(requests, concurrency=concurrency, context=context, checkpointer=InMemorySaver())
    wall = time.perf_counter() - started
    return {
        "concurrency": concurrency,
        "wall_s": round(wall, 2),
        "runs_per_s": round(RUNS / wall, 2),
        **tally(items),
    }


def tally(items: list[BatchItem]) -> dict[str, int]:
    passed = sum(1 for i in items if i.result is not None and i.result["status"] == "passed")
    return {
        "completed": sum(1 for i in items if i.result is not None),
        "passed": passed,
        "errors": sum(1 for i in items if i.error is not None),
        "lost": RUNS - len({i.index for i in items}),
    }


async def both(context: Context) -> tuple[dict[str, object], dict[str, object]]:
    return await timed_batch(context, RUNS), await timed_batch(context, 1)


def main() -> None:
    with ScriptedServer(delay=lambda body: MODEL_SECONDS) as server:
        # Generous test time limit: 100 test processes start at once on a small machine.
        context = Context(model="scripted", base_url=server.url, timeout_s=120)
        concurrent, sequential = asyncio.run(both(context))
        model_calls = len(server.calls)
    result = {
        "runs": RUNS,
        "model_seconds_per_call": MODEL_SECONDS,
        "model_calls": model_calls,
        "concurrent": concurrent,
        "sequential": sequential,
        "speedup": round(sequential["wall_s"] / concurrent["wall_s"], 2),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
    }
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
