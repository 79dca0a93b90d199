"""The first node of a run: refuse bad input, reset the per-run fields."""

from __future__ import annotations

import uuid

from codeheal.errors import InputError
from codeheal.evaluation.checks import calls_name, count_checks, parse_tests
from codeheal.policy import WEAK_BELOW
from codeheal.project.task import DEFAULT_TASK, UNCHANGED, load_project
from codeheal.prompting.model_call import NO_USAGE
from codeheal.prompting.prompts import tested_function
from codeheal.state import State


def is_project(state: State) -> bool:
    """Whether the run heals a project (the project form) rather than writing a module."""
    return bool(state.get("project"))


def validate_input(state: State) -> None:
    """Raise InputError for input no model call could fix (module form; the project form is
    checked by `load_project`, which reads the project)."""
    task, tests = state.get("task"), state.get("tests")
    if not isinstance(task, str) or not task.strip():
        raise InputError("the task is empty: describe what the code should do")
    if not isinstance(tests, str) or not tests.strip():
        raise InputError("the tests are empty: give pytest-style test_* functions or plain asserts")
    module = parse_tests(tests)
    if count_checks(module) == 0:
        raise InputError("the tests contain no checks: add test_* functions or top-level asserts")
    entry_point = state.get("entry_point")
    if entry_point:
        if not entry_point.isidentifier():
            raise InputError(f"entry_point {entry_point!r} is not a Python identifier")
        if not calls_name(module, entry_point):
            raise InputError(f"entry_point {entry_point!r} is never used by the tests")
    code = state.get("starting_code")
    if code is not None and not isinstance(code, str):
        raise InputError(f"starting_code must be a string, got {type(code).__name__}")


def prepare(state: State) -> dict:
    """Validate the input and start a fresh run: every per-run field is reset. The
    reflection memory is kept: on a thread it carries the lessons of earlier runs.

    The project form reads the project once (its files travel in state, so that every
    attempt edits the same snapshot) and tests it as it is before any model call."""
    reset = {
        "attempts": 0,
        "attempt_limit": None,
        "status": "running",
        "code": "",
        "history": [],
        "feedback": None,
        "sandbox_session": uuid.uuid4().hex,
        "tested": None,
        "probes": None,
        "generation": NO_USAGE,
        "fresh_start": False,
        "written": 0,
        "stop_reason": None,
        "probe_function": None,
    }
    if is_project(state):
        task = state.get("task")
        if task is not None and not isinstance(task, str):
            raise InputError(f"task must be a string, got {type(task).__name__}")
        project = load_project(
            state["project"], state.get("test_command") or "", target=state.get("target"), python=state.get("python"),
        )
        return {
            **reset,
            "task": task if task and task.strip() else DEFAULT_TASK,
            "workspace": project.snapshot.files,
            "interpreter": project.interpreter,
            "candidates": [UNCHANGED],
            "repair_failures": None,
            "diff": "",
            "changed": [],
            "files_written": [],
        }
    validate_input(state)
    starting_code = state.get("starting_code") or ""
    weak = count_checks(parse_tests(state["tests"])) < WEAK_BELOW
    return {
        **reset,
        "candidates": [starting_code] if starting_code.strip() else [],
        "probe_function": tested_function(state) if weak else None,
    }
