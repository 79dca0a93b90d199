"""solve_many: many runs on one event loop, over real HTTP to a scripted model and real
sandbox processes, without one run blocking another."""

from __future__ import annotations

import asyncio

from langgraph.checkpoint.memory import InMemorySaver
from scripted_openai import ADD_TASK, ADD_TESTS, LESSON, ScriptedServer

from codeheal import Context, solve_many
from codeheal.batch import BatchItem
from codeheal.errors import InputError

MODEL_SECONDS = 1.0
REQUEST = {"task": ADD_TASK, "tests": ADD_TESTS}


async def with_heartbeat(batch: asyncio.Future) -> tuple[list[BatchItem], float]:
    """Await `batch` while a task ticks every 20 ms; returns its result and the longest gap
    between ticks (how long the loop was ever blocked)."""
    loop = asyncio.get_running_loop()
    gaps: list[float] = []

    async def tick() -> None:
        last = loop.time()
        while True:
            await asyncio.sleep(0.02)
            gaps.append(loop.time() - last)
            last = loop.time()

    ticker = asyncio.create_task(tick())
    try:
        return await batch, max(gaps)
    finally:
        ticker.cancel()


def test_five_runs_share_one_loop_and_all_finish() -> None:
    ended: list[tuple[int, int]] = []
    with ScriptedServer(delay=lambda body: MODEL_SECONDS) as server:
        context = Context(model="scripted", base_url=server.url)
        items, worst_gap = asyncio.run(with_heartbeat(solve_many(
            [REQUEST] * 5, concurrency=5, context=context, checkpointer=InMemorySaver(),
            on_progress=lambda item, done, total: ended.append((done, total)),
        )))

    assert [item.index for item in items] == [0, 1, 2, 3, 4]
    assert len({item.thread_id for item in items}) == 5
    for item in items:
        assert item.error is None
        assert (item.result["status"], item.result["attempts"], item.result["reflections"]) == ("passed", 2, [LESSON])
    assert ended == [(1, 5), (2, 5), (3, 5), (4, 5), (5, 5)]
    # all five waited on the model at the same time (what a wall-clock bound showed, without
    # depending on the machine's load)
    assert server.max_in_flight == 5
    assert worst_gap < 0.8 * MODEL_SECONDS  # neither a model call nor a test run blocked the loop


def test_a_failing_request_does_not_lose_the_others() -> None:
    with ScriptedServer() as server:
        context = Context(model="scripted", base_url=server.url)
        bad, good = asyncio.run(solve_many(
            [{"task": ADD_TASK, "tests": "   "}, REQUEST], concurrency=2, context=context
        ))
    assert isinstance(bad.error, InputError) and bad.result is None
    assert good.error is None and good.result["status"] == "passed"
