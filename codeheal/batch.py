"""Many runs at once on one event loop: `solve_many`.

Every node has an async face (the async model client, asyncio subprocesses in the local
sandbox, the async E2B client), so K runs share one loop and one thread without blocking
each other; a semaphore keeps at most K of them going.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver

from codeheal.checkpointers import open_async_checkpointer
from codeheal.context import Context
from codeheal.errors import ConfigError
from codeheal.llm import chat_model
from codeheal.loop.builder import build_graph
from codeheal.sandboxes.base import Sandbox
from codeheal.state import InputState, RunReport


@dataclass
class BatchItem:
    """The outcome of one request of a batch: its result, or the error that ended it."""

    index: int
    """Position of the request in the batch."""
    thread_id: str
    result: RunReport | None = None
    error: Exception | None = None


ProgressCallback = Callable[[BatchItem, int, int], None]
"""Called as each run ends, with the item, how many runs have ended, and the batch size."""


async def solve_many(
    requests: Sequence[InputState],
    *,
    concurrency: int = 4,
    context: Context | None = None,
    checkpointer: BaseCheckpointSaver | str | None = None,
    on_progress: ProgressCallback | None = None,
    llm: BaseChatModel | None = None,
    sandbox: Sandbox | None = None,
) -> list[BatchItem]:
    """Solve every request, at most `concurrency` at a time, on the running event loop.

    Returns one BatchItem per request, in request order; a run that raises (bad input, a
    model that stays down) has `error` set and does not stop the others. `checkpointer`: a
    saver with async methods, or a postgresql:// URL / SQLite path opened for the batch;
    with one, each run gets its own thread (`BatchItem.thread_id`) checkpointed every step.
    `llm` and `sandbox` override the Context's, as in `build_graph`."""
    if concurrency < 1:
        raise ConfigError(f"concurrency must be >= 1, got {concurrency!r}")
    context = context or Context()
    if llm is None:
        await asyncio.to_thread(_warm_model_clients, context)
    semaphore = asyncio.Semaphore(concurrency)
    ended = 0

    async with _saver(checkpointer) as saver:
        graph = build_graph(llm=llm, sandbox=sandbox).compile(checkpointer=saver, name="codeheal")
        # Without a checkpointer LangGraph rejects `durability` (and mishandles errors with it).
        durability = {"durability": "sync"} if saver is not None else {}

        async def run(index: int, request: InputState) -> BatchItem:
            nonlocal ended
            item = BatchItem(index=index, thread_id=uuid.uuid4().hex[:12])
            config = {"configurable": {"thread_id": item.thread_id}}
            async with semaphore:
                try:
                    item.result = await graph.ainvoke(request, config, context=context, **durability)
                except Exception as exc:  # one failed run must not lose the rest of the batch
                    item.error = exc
            ended += 1
            if on_progress is not None:
                on_progress(item, ended, len(requests))
            return item

        return list(await asyncio.gather(*(run(i, r) for i, r in enumerate(requests))))


def _warm_model_clients(context: Context) -> None:
    """Build the cached chat clients up front, off the loop: the first construction loads
    TLS certificates (about half a second) and, for the local model, starts its server."""
    for temperature in {context.policy.temperature, context.policy.retry_temperature}:
        chat_model(context, temperature)


@asynccontextmanager
async def _saver(checkpointer: BaseCheckpointSaver | str | None) -> AsyncIterator[BaseCheckpointSaver | None]:
    if isinstance(checkpointer, str):
        async with open_async_checkpointer(checkpointer) as saver:
            yield saver
    else:
        yield checkpointer
