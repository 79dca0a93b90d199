"""Where the loop goes next: pure functions of state, typed so Studio draws every edge."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END
from langgraph.runtime import Runtime

from codeheal.context import Context, resolve_context
from codeheal.state import State


def route_start(state: State) -> Literal["actor", "evaluator"]:
    """Starting code supplied with the input is tested before any model call."""
    return "evaluator" if state.get("candidates") else "actor"


def route_after_evaluation(
    state: State, runtime: Runtime[Context] | None = None
) -> Literal["reflector", "review", "__end__"]:
    """End when the tests passed or the attempts are used up; otherwise reflect. Used-up
    attempts go to human review instead when the run's Context asks for it."""
    status = state.get("status")
    if status == "running":
        return "reflector"
    if status == "failed" and resolve_context(runtime.context if runtime else None).review_on_exhaustion:
        return "review"
    return END


def route_after_review(state: State) -> Literal["actor", "__end__"]:
    """A reviewer's retry goes back to the actor; accept and abort end the run."""
    return "actor" if state.get("status") == "running" else END
