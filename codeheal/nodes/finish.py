"""The last node of a run: its status and best code (in the project form, its diff, written
into the project on request), the sandbox session released, and the run's own input cleared
from the thread (the next run brings its own)."""

from __future__ import annotations

from collections.abc import Callable

from codeheal.context import current_context
from codeheal.nodes.prepare import is_project
from codeheal.policy import best_attempt, final_status
from codeheal.progress import RunStatus, emit
from codeheal.project.diff import unified_diff, write_changes
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Sandbox, SessionSandbox
from codeheal.state import Attempt, State
from codeheal.steps import CloseSession, Steps


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
        best = best_attempt(history) if history else None
        update = {
            "status": status,
            "code": best["code"] if best else "",
            "sandbox_session": None,
            "starting_code": None,
            "entry_point": None,
        }
        if is_project(state):
            update |= project_outcome(state, best, status)
        return update

    return finish


def project_outcome(state: State, best: Attempt | None, status: str) -> dict:
    """The project form's result: the best attempt's change as a diff, written into the
    project when the input asks for it and the tests pass; the run's input and the snapshot
    cleared from the thread. Raises DirtyTreeError (nothing written) when a file to write
    has uncommitted changes (unless `force`) or changed since it was read."""
    changes = (best or {}).get("changes") or {}
    written = []
    if state.get("apply") and status == "passed" and changes:
        paths = write_changes(state["project"], changes, originals=state["workspace"], force=bool(state.get("force")))
        written = [str(path) for path in paths]
    return {
        "diff": unified_diff(state["workspace"], changes).text,
        "changed": list((best or {}).get("changed") or []),
        "files_written": written,
        **dict.fromkeys(("project", "test_command", "target", "python", "workspace", "interpreter", "repair_failures")),
        "apply": False,
        "force": False,
    }
