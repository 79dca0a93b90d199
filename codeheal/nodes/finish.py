"""The last node of a run: its status and best code (in the project form, its diff, written
into the project on request), the sandbox session released, and the run's own input cleared
from the thread (the next run brings its own)."""

from __future__ import annotations

from collections.abc import Callable

from codeheal.context import current_context
from codeheal.forms.choice import form_of
from codeheal.learning import run_store, settle
from codeheal.rules import best_attempt, final_status
from codeheal.progress import RunStatus, emit
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox, SessionSandbox
from codeheal.state import State
from codeheal.steps import CloseSession, Steps


def make_finish(sandbox: Sandbox | None = None) -> Callable[[State], Steps[dict]]:
    """The finish node's body; `sandbox` overrides the one named in the run's Context."""

    def finish(state: State) -> Steps[dict]:
        context = current_context()
        session = state.sandbox_session
        chosen = sandbox or sandbox_for(context)
        if session and isinstance(chosen, SessionSandbox):
            yield CloseSession(chosen, session)
        settle(state, run_store())  # the last routed retry's outcome
        form = form_of(state.form)
        status = final_status(state, form.policy_for(context.policy))
        attempts = state.attempts
        history = state.history
        best = best_attempt(history) if history else None
        update = {
            "status": status,
            "code": best["code"] if best else "",
            "sandbox_session": None,
            "starting_code": None,
            "entry_point": None,
            "route": None,
        }
        fields, note = form.outcome(state, best, status)
        update |= fields
        event = RunStatus(kind="status", status=status, attempts=attempts)
        if note:
            event["note"] = note
        emit(event)
        return update

    return finish
