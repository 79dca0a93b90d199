"""Reading threads back from a checkpointer, as a history of runs: what `codeheal threads` and
`show` print (a fix run's project, test command, status and change), and the one test of
whether a thread's run is unfinished (what `codeheal resume` continues).

A thread is read from its saved checkpoints alone, without the graph: the steps a run has
left are the triggers its latest checkpoint holds (so `threads` and `show` import no graph, no
model client: they answer in a fraction of a second)."""

from __future__ import annotations

from dataclasses import dataclass, field

from langgraph.checkpoint.base import BaseCheckpointSaver, CheckpointTuple

from codeheal.errors import CheckpointError, FlakyTestsError, InputError
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


STEP_LEFT = ("branch:to:", "__start__", "__pregel_tasks")
"""LangGraph's channels that trigger a step: a checkpoint that holds one (a trigger not yet
consumed: a node's edge, the run's input, a Send) has a step to run."""


def run_status(saved: CheckpointTuple | None) -> str:
    """How the run of a thread's latest checkpoint (`saver.get_tuple`) stands: PAUSED for a
    human review, REFUSED when bad input stopped it, UNFINISHED while it has steps left, else
    the status it ended with."""
    if saved is None:
        return UNFINISHED
    writes = saved.pending_writes or []
    if any(channel == "__interrupt__" for _, channel, _ in writes):
        return PAUSED
    if any(channel == "__error__" and isinstance(value, str) and value.split("(", 1)[0] in REFUSALS
           for _, channel, value in writes):
        return REFUSED
    if _steps_left(saved):
        return UNFINISHED
    return saved.checkpoint["channel_values"].get("status") or "ended"


def is_unfinished(saved: CheckpointTuple | None) -> bool:
    """Whether the thread's run was cut short and `codeheal resume` continues it: what
    `codeheal threads` lists as UNFINISHED."""
    return saved is not None and run_status(saved) == UNFINISHED


def _steps_left(saved: CheckpointTuple) -> bool:
    return any(channel.startswith(STEP_LEFT) for channel in saved.checkpoint["channel_values"])


def list_threads(saver: BaseCheckpointSaver) -> list[ThreadSummary]:
    """Every thread in the store, most recently updated first."""
    latest: dict[str, CheckpointTuple] = {}
    # `list` yields newest checkpoints first, so threads come in order of their last update.
    for item in saver.list(None):
        configurable = item.config["configurable"]
        if not configurable.get("checkpoint_ns") and configurable["thread_id"] not in latest:
            latest[configurable["thread_id"]] = item
    summaries = [_summary(saver, thread_id, saver.get_tuple(_config(thread_id))) for thread_id in latest]
    return sorted(summaries, key=lambda s: s.updated, reverse=True)


def thread_detail(saver: BaseCheckpointSaver, thread_id: str) -> ThreadDetail:
    """One thread's latest run and memory; CheckpointError when the store has no such thread."""
    saved = saver.get_tuple(_config(thread_id))
    if saved is None:
        raise CheckpointError(f"no thread {thread_id!r} in this checkpointer: `codeheal threads` lists them")
    values = saved.checkpoint["channel_values"]
    summary = _summary(saver, thread_id, saved)
    return ThreadDetail(
        **vars(summary),
        history=list(values.get("history") or []),
        memory=list(values.get("reflections") or []),
        diff=values.get("diff") if summary.project and not _steps_left(saved) else None,
    )


def _config(thread_id: str) -> dict:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}


def _project_input(saver: BaseCheckpointSaver, thread_id: str, values: dict) -> tuple[str | None, str | None]:
    """A fix run's project and test command: its finish clears them from the thread, so they
    are read from the run's latest checkpoint that holds them (the one before its end)."""
    if values.get("project"):
        return values["project"], values.get("test_command")
    if values.get("form") != "project":
        return None, None
    for earlier in saver.list(_config(thread_id)):  # newest first
        found = earlier.checkpoint["channel_values"]
        if found.get("project"):
            return found["project"], found.get("test_command")
    return None, None


def _summary(saver: BaseCheckpointSaver, thread_id: str, saved: CheckpointTuple) -> ThreadSummary:
    values = saved.checkpoint["channel_values"]
    task = (values.get("task") or "").strip()
    project, test_command = _project_input(saver, thread_id, values)
    if project:
        task = f"{project}: {test_command or ''}".strip()
    return ThreadSummary(
        thread_id=thread_id,
        status=run_status(saved),
        attempts=values.get("attempts") or 0,
        reflections=len(values.get("reflections") or []),
        updated=saved.checkpoint["ts"],
        task=task.splitlines()[0] if task else "",
        project=project,
        test_command=test_command,
    )
