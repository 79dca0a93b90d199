"""The first node of a run: choose its form, refuse bad input and a sandbox that cannot start,
reset the per-run fields."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable

from codeheal.context import current_context
from codeheal.forms.choice import choose_form
from codeheal.nodes.prepare_candidates import to_test
from codeheal.progress import emit
from codeheal.rules import deadline_from_now
from codeheal.sandboxes import check_available, sandbox_for
from codeheal.sandboxes.base import Sandbox
from codeheal.state import State


def make_prepare(sandbox: Sandbox | None = None) -> Callable[[State], dict]:
    """The prepare node; `sandbox` overrides the one named in the run's Context."""

    def prepare(state: State) -> dict:
        return _prepare(state, sandbox)

    return prepare


def _prepare(state: State, sandbox: Sandbox | None) -> dict:
    """The first node, the one entry of every run (graph.invoke, the CLI, Studio): choose the
    run's form, validate the input and start a fresh run, announced as `run_started`. Every
    per-run field is reset; the reflection memory is kept: on a thread it carries the reflections
    of earlier runs. The form adds its own fields, the first candidates among them (the
    project form reads the project once and tests it as it is before any model call). Raises
    InputError; then, before any model call, what the sandbox raises when it cannot start at all
    (sandboxes.check_available: E2B without a key, exit 2 in the CLI; bubblewrap missing, exit 3)."""
    form = choose_form(state.project)
    context = current_context()
    reset = {
        "form": form.name,
        "attempts": 0,
        "attempt_limit": None,
        "status": "running",
        "code": "",
        "history": [],
        "feedback": None,
        "sandbox_session": uuid.uuid4().hex,
        "candidates": [],
        "prepared": [],
        "tried": [],
        "written": 0,
        "screened": False,
        "screen": [],
        "screen_plan": None,
        "stop_reason": None,
        "deadline": deadline_from_now(context),
        "probe_function": None,
        "task_checks": [],
        "form_run": None,
    }
    fields, started = form.start(state, context)
    update = {**reset, **fields}
    if update.get("candidates"):
        update["prepared"] = to_test(dataclasses.replace(state, **update), update["candidates"])
    check_available(sandbox or sandbox_for(context))
    emit(started)
    return update
