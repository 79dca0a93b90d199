"""The project form's checker runs (`--check CMD`): the checker run in the sandbox like the
tests, on the project's copy at the project's path (the project as it is, or with a change),
and judged on the host (checker.py); its check beside the tests' when both are given."""

from __future__ import annotations

from collections.abc import Sequence

from codeheal.errors import InputError
from codeheal.forms.project.checker import Diagnostic, check_feedback, checker_name
from codeheal.forms.project.job import project_job
from codeheal.forms.project.run import ProjectRun
from codeheal.forms.project.task import TestCommand
from codeheal.forms.project.test_paths import is_test_file
from codeheal.forms.project.workspace_store import Workspace
from codeheal.sandboxes.base import Sandbox
from codeheal.state import Feedback
from codeheal.steps import SandboxRun, Steps


def check_run(
    sandbox: Sandbox, run: ProjectRun, workspace: Workspace, limit: float, session: str | None,
    before: Sequence[Diagnostic] | None,
) -> Steps[tuple[Feedback, list[Diagnostic] | None]]:
    """One run of the run's checker on the `workspace`'s files, judged against `before` (the
    diagnostics of the project as it is; None: this is the project as it is), and the
    diagnostics read (None when none could be read: checker.check_feedback)."""
    check = run["check"]
    job = project_job(workspace.files, TestCommand(tuple(check["argv"]), None), limit, session, run["interpreter"],
                      workdir=run["root"], data=workspace.data, folders=frozenset(run["folders"]))
    result = yield SandboxRun(sandbox, job)
    feedback, diagnostics = check_feedback(result, workspace.files, run["root"], checker_name(check["argv"]), before)
    feedback["time_limit_s"] = limit
    return feedback, diagnostics


def as_is_check(
    sandbox: Sandbox, run: ProjectRun, workspace: Workspace, limit: float, session: str | None,
) -> Steps[tuple[Feedback, list[Diagnostic]]]:
    """The checker on the project as it is: its feedback and diagnostics. InputError (before
    any model call) when the checker fails without a diagnostic codeheal can read, or reports
    errors in the tests alone (a repair never changes the tests)."""
    feedback, diagnostics = yield from check_run(sandbox, run, workspace, limit, session, None)
    command = run["check"]["text"]
    if diagnostics is None:
        raise InputError(
            f"check command {command!r} cannot check the project as it is: {feedback['error']}\nGive a checker "
            "that prints its errors as mypy, pyright or ruff do (e.g. 'python -m mypy PACKAGE')"
        )
    if diagnostics and all(is_test_file(d["file"]) for d in diagnostics):
        raise InputError(
            f"check command {command!r} reports errors in the tests only ({diagnostics[0]['file']} line "
            f"{diagnostics[0]['line']}: {diagnostics[0]['message']}): codeheal never changes the tests, so there "
            "is nothing for it to repair"
        )
    return feedback, diagnostics


def change_check(
    sandbox: Sandbox, run: ProjectRun, workspace: Workspace, limit: float, session: str | None,
) -> Steps[Feedback]:
    """The checker on a change (`workspace`: the project's files with it): passed when it
    reports no error; failed, saying which, when it adds one the project as it is did not have."""
    as_is = run["as_is"]
    assert as_is is not None
    feedback, _ = yield from check_run(sandbox, run, workspace, limit, session, as_is.get("diagnostics", []))
    return feedback


def both(tests: Feedback, check: Feedback) -> Feedback:
    """The tests' feedback and the checker's as one: passed when both are, counts and failures
    added, the tests' own fields (the tests that ran, their output) kept."""
    return Feedback(**{
        **tests, "passed": tests["passed"] and check["passed"], "total": tests["total"] + check["total"],
        "passed_count": tests["passed_count"] + check["passed_count"],
        "failures": [*tests["failures"], *check["failures"]], "error": tests["error"] or check["error"],
        "timed_out": tests["timed_out"] or check["timed_out"],
        "seconds": round(tests["seconds"] + check["seconds"], 3),
    })

