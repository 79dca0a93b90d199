"""Reading threads back from a checkpointer: what `codeheal threads` and `show` print, and the
one test of whether a thread's run is unfinished (what `codeheal resume` continues)."""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from codeheal.errors import CheckpointError
from codeheal.loop.builder import build_graph
from codeheal.state import Attempt

UNFINISHED = "unfinished"
"""A run that stopped before reaching an end (killed, crashed, interrupted, a write refused, or
still going elsewhere): it has steps left, which `codeheal resume` runs."""
PAUSED = "review"
"""A run paused for a human review (Context.review_on_exhaustion)."""


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


def run_status(snapshot: StateSnapshot) -> str:
    """How a thread's latest run stands: PAUSED for a human review, UNFINISHED while it has
    steps left, else the status it ended with."""
    if any(task.interrupts for task in snapshot.tasks):
        return PAUSED
    if snapshot.next:
        return UNFINISHED
    return snapshot.values.get("status") or "ended"


def is_unfinished(snapshot: StateSnapshot) -> bool:
    """Whether the thread's run was cut short and `codeheal resume` continues it: what
    `codeheal threads` lists as UNFINISHED."""
    return run_status(snapshot) == UNFINISHED


def list_threads(saver: BaseCheckpointSaver) -> list[ThreadSummary]:
    """Every thread in the store, most recently updated first."""
    threads: list[str] = []
    # `list` yields newest checkpoints first, so threads come in order of their last update.
    for item in saver.list(None):
        configurable = item.config["configurable"]
        if not configurable.get("checkpoint_ns") and configurable["thread_id"] not in threads:
            threads.append(configurable["thread_id"])
    graph = _graph(saver)
    summaries = [_summary(thread_id, graph.get_state(_config(thread_id))) for thread_id in threads]
    return sorted(summaries, key=lambda s: s.updated, reverse=True)


def thread_detail(saver: BaseCheckpointSaver, thread_id: str) -> ThreadDetail:
    """One thread's latest run and memory; CheckpointError when the store has no such thread."""
    snapshot = _graph(saver).get_state(_config(thread_id))
    if snapshot.created_at is None:
        raise CheckpointError(f"no thread {thread_id!r} in this checkpointer: `codeheal threads` lists them")
    values = snapshot.values
    return ThreadDetail(
        **vars(_summary(thread_id, snapshot)),
        history=list(values.get("history") or []),
        memory=list(values.get("reflections") or []),
    )


def _graph(saver: BaseCheckpointSaver) -> CompiledStateGraph:
    """The graph over the store: a thread's state and steps left are read through it."""
    return build_graph().compile(checkpointer=saver, name="codeheal")


def _config(thread_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id}}


def _summary(thread_id: str, snapshot: StateSnapshot) -> ThreadSummary:
    values = snapshot.values
    task = (values.get("task") or "").strip()
    project = values.get("project")
    if project:
        task = f"{project}: {values.get('test_command') or ''}".strip()
    return ThreadSummary(
        thread_id=thread_id,
        status=run_status(snapshot),
        attempts=values.get("attempts") or 0,
        reflections=len(values.get("reflections") or []),
        updated=snapshot.created_at or "",
        task=task.splitlines()[0] if task else "",
        project=project,
    )
