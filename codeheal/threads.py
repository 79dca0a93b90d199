"""Reading threads back from a checkpointer, as a history of runs: what `codeheal threads` and
`show` print (a fix run's project, test command, status and change), and the one test of
whether a thread's run is unfinished (what `codeheal resume` continues)."""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import StateSnapshot

from codeheal.errors import CheckpointError, FlakyTestsError, InputError
from codeheal.loop.builder import build_graph
from codeheal.state import Attempt

UNFINISHED = "unfinished"
"""A run that stopped before reaching an end (killed, crashed, interrupted, a write refused, or
still going elsewhere): it has steps left, which `codeheal resume` runs."""
PAUSED = "review"
"""A run paused for a human review (Context.review_on_exhaustion)."""
REFUSED = "refused"
"""A run stopped by bad input found after it began (exit 2: e.g. a test command that fails
with no Python frame in the project, flaky tests): resuming it would meet the same refusal,
so it is not unfinished."""
REFUSALS = {InputError.__name__, FlakyTestsError.__name__}
"""The errors that refuse a run's input; a refused write (uncommitted files) is not one: once
they are committed, `codeheal resume` writes the change."""


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
    test_command: str | None = None
    """A fix thread's test command (None for a solve thread)."""


@dataclass
class ThreadDetail(ThreadSummary):
    """A thread with the attempts of its latest run and its whole reflection memory."""

    history: list[Attempt] = field(default_factory=list)
    memory: list[str] = field(default_factory=list)
    diff: str | None = None
    """A finished fix run's change as a unified diff (the best attempt's, which fails when the
    run did not pass); None for a solve thread or a run that has not finished."""


def run_status(snapshot: StateSnapshot) -> str:
    """How a thread's latest run stands: PAUSED for a human review, UNFINISHED while it has
    steps left, else the status it ended with."""
    if any(task.interrupts for task in snapshot.tasks):
        return PAUSED
    if any(isinstance(task.error, str) and task.error.split("(", 1)[0] in REFUSALS for task in snapshot.tasks):
        return REFUSED
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
    summaries = [_summary(thread_id, graph, graph.get_state(_config(thread_id))) for thread_id in threads]
    return sorted(summaries, key=lambda s: s.updated, reverse=True)


def thread_detail(saver: BaseCheckpointSaver, thread_id: str) -> ThreadDetail:
    """One thread's latest run and memory; CheckpointError when the store has no such thread."""
    graph = _graph(saver)
    snapshot = graph.get_state(_config(thread_id))
    if snapshot.created_at is None:
        raise CheckpointError(f"no thread {thread_id!r} in this checkpointer: `codeheal threads` lists them")
    values = snapshot.values
    summary = _summary(thread_id, graph, snapshot)
    return ThreadDetail(
        **vars(summary),
        history=list(values.get("history") or []),
        memory=list(values.get("reflections") or []),
        diff=values.get("diff") if summary.project and not snapshot.next else None,
    )


def _graph(saver: BaseCheckpointSaver) -> CompiledStateGraph:
    """The graph over the store: a thread's state and steps left are read through it."""
    return build_graph().compile(checkpointer=saver, name="codeheal")


def _config(thread_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id}}


def _project_input(graph: CompiledStateGraph, thread_id: str, snapshot: StateSnapshot) -> tuple[str | None, str | None]:
    """A fix run's project and test command: its finish clears them from the thread, so they
    are read from the run's latest checkpoint that holds them (the one before its end)."""
    if snapshot.values.get("project"):
        return snapshot.values["project"], snapshot.values.get("test_command")
    if snapshot.values.get("form") != "project":
        return None, None
    for earlier in graph.get_state_history(_config(thread_id)):  # newest first
        if earlier.values.get("project"):
            return earlier.values["project"], earlier.values.get("test_command")
    return None, None


def _summary(thread_id: str, graph: CompiledStateGraph, snapshot: StateSnapshot) -> ThreadSummary:
    values = snapshot.values
    task = (values.get("task") or "").strip()
    project, test_command = _project_input(graph, thread_id, snapshot)
    if project:
        task = f"{project}: {test_command or ''}".strip()
    return ThreadSummary(
        thread_id=thread_id,
        status=run_status(snapshot),
        attempts=values.get("attempts") or 0,
        reflections=len(values.get("reflections") or []),
        updated=snapshot.created_at or "",
        task=task.splitlines()[0] if task else "",
        project=project,
        test_command=test_command,
    )
