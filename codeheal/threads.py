"""Reading threads back from a checkpointer: what `codeheal threads` and `show` print."""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

from codeheal.errors import CheckpointError
from codeheal.state import Attempt

UNFINISHED = "unfinished"
"""A run that stopped before reaching an end (killed, crashed, or still going elsewhere)."""
PAUSED = "review"
"""A run paused for a human review (Context.review_on_exhaustion)."""
INTERRUPT_CHANNEL = "__interrupt__"
"""The pending write an `interrupt()` leaves (LangGraph keeps its own constant private)."""


@dataclass
class ThreadSummary:
    """One thread as its latest checkpoint leaves it."""

    thread_id: str
    status: str
    attempts: int
    reflections: int
    updated: str
    task: str
    """The task's first line; for a fix thread, the project and its test command."""
    project: str | None = None
    """A fix thread's project folder (None for a solve thread)."""


@dataclass
class ThreadDetail(ThreadSummary):
    """A thread with the attempts of its latest run and its whole reflection memory."""

    history: list[Attempt] = field(default_factory=list)
    memory: list[str] = field(default_factory=list)


def list_threads(saver: BaseCheckpointSaver) -> list[ThreadSummary]:
    """Every thread in the store, most recently updated first."""
    latest: dict[str, CheckpointTuple] = {}
    # `list` yields newest checkpoints first: the first one seen of a thread is its latest.
    for item in saver.list(None):
        configurable = item.config["configurable"]
        if configurable.get("checkpoint_ns") or configurable["thread_id"] in latest:
            continue
        latest[configurable["thread_id"]] = item
    summaries = [_summary(item) for item in latest.values()]
    return sorted(summaries, key=lambda s: s.updated, reverse=True)


def thread_detail(saver: BaseCheckpointSaver, thread_id: str) -> ThreadDetail:
    """One thread's latest run and memory; CheckpointError when the store has no such thread."""
    item = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    if item is None:
        raise CheckpointError(f"no thread {thread_id!r} in this checkpointer: `codeheal threads` lists them")
    values = item.checkpoint["channel_values"]
    return ThreadDetail(
        **vars(_summary(item)),
        history=list(values.get("history") or []),
        memory=list(values.get("reflections") or []),
    )


def _summary(item: CheckpointTuple) -> ThreadSummary:
    values = item.checkpoint["channel_values"]
    status = values.get("status") or UNFINISHED
    if any(channel == INTERRUPT_CHANNEL for _, channel, _ in item.pending_writes or ()):
        status = PAUSED
    elif status == "running" or item.metadata.get("source") == "input":
        status = UNFINISHED
    task = (values.get("task") or "").strip()
    project = values.get("project")
    if project:
        task = f"{project}: {values.get('test_command') or ''}".strip()
    return ThreadSummary(
        thread_id=item.config["configurable"]["thread_id"],
        status=status,
        attempts=values.get("attempts") or 0,
        reflections=len(values.get("reflections") or []),
        updated=item.checkpoint["ts"],
        task=task.splitlines()[0] if task else "",
        project=project,
    )
