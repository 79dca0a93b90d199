"""Live progress: the custom stream events the nodes emit while a run goes on.

Read them with ``graph.stream(inp, stream_mode=["updates", "custom"])`` (each custom chunk is
one event below) or through the LangGraph server's stream with ``stream_mode="custom"``.
Every event is a plain dict whose ``kind`` key says which of the four shapes it has:

- ``attempt_started``: ``attempt`` (1-based) of ``max_attempts`` is being written.
- ``tests_result``: the evaluator finished ``attempt``: ``passed``, ``passed_count`` of
  ``total`` checks, a one-line ``summary`` and the ``seconds`` the attempt took.
- ``reflection_written``: the lesson drawn from ``attempt`` (from the reflector, or a
  human reviewer's hint).
- ``status``: the run ended with ``status`` ("passed", "failed" or "accepted") after
  ``attempts`` attempts. Emitted once, when the outcome is final.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from langgraph.config import get_stream_writer

from codeheal.state import Status


class AttemptStarted(TypedDict):
    kind: Literal["attempt_started"]
    attempt: int
    max_attempts: int


class AttemptTested(TypedDict):
    kind: Literal["tests_result"]
    attempt: int
    passed: bool
    passed_count: int
    total: int
    summary: str
    seconds: float


class ReflectionWritten(TypedDict):
    kind: Literal["reflection_written"]
    attempt: int
    reflection: str


class RunStatus(TypedDict):
    kind: Literal["status"]
    status: Status
    attempts: int


ProgressEvent = AttemptStarted | AttemptTested | ReflectionWritten | RunStatus


def emit(event: ProgressEvent) -> None:
    """Send one progress event to the run's custom stream. A no-op when nobody streams
    "custom", and when called outside a graph run (a node function tested on its own)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:
        return
    writer(event)
