"""Where the loop goes next: pure functions of state, typed so Studio draws every edge."""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END

from codeheal.state import State


def route_start(state: State) -> Literal["actor", "evaluator"]:
    """Starting code supplied with the input is tested before any model call."""
    return "evaluator" if (state.get("candidate") or "").strip() else "actor"


def route_after_evaluation(state: State) -> Literal["reflector", "__end__"]:
    """End when the tests passed or the attempts are used up; otherwise reflect."""
    return "reflector" if state.get("status") == "running" else END
