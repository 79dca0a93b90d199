"""The last node of a run: its status and best code, the sandbox session released, and the
run's own input cleared from the thread (the next run brings its own)."""

from __future__ import annotations

from collections.abc import Callable

from codeheal.context import current_context
from codeheal.graph.policy import best_attempt, final_status
from codeheal.nodes.steps import CloseSession, Steps
from codeheal.progress import RunStatus, emit
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox, SessionSandbox
from codeheal.state import State


def make_finish(sandbox: Sandbox | None = None) -> Callable[[State], Steps[dict]]:
    """The finish node's body; `sandbox` overrides the one named in the run's Context."""

    def finish(state: State) -> Steps[dict]:
        context = current_context()
        session = state.get("sandbox_session")
        chosen = sandbox or sandbox_for(context)
        if session and isinstance(chosen, SessionSandbox):
            yield CloseSession(chosen, session)
        status = final_status(state, context)
        attempts = state.get("attempts") or 0
        emit(RunStatus(kind="status", status=status, attempts=attempts))
        history = state.get("history") or []
        return {
            "status": status,
            "code": best_attempt(history)["code"] if history else "",
            "sandbox_session": None,
            "starting_code": None,
            "entry_point": None,
        }

    return finish
