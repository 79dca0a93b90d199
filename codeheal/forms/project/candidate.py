"""The project form's evaluation of one candidate: the reply applied to the project's files as
targeted edits (refused when it reaches beyond the failing path or into the tests), the tamper
scan of what the model wrote, the linter stage, then the tests: those that failed on the
project as it is first, and, when they pass, the whole test command, under a time limit
derived from the run of the project as it is (policy.time_limit). The run of the project as
it is also records each test's line coverage, which ranks the suspicious lines."""

from __future__ import annotations

import functools
from collections.abc import Mapping

from codeheal.context import Context
from codeheal.errors import EditRejected, InputError
from codeheal.evaluation.coverage import coverage_by_test
from codeheal.evaluation.feedback import (
    attempt_feedback,
    output_feedback,
    reported,
    run_feedback,
    tamper_feedback,
)
from codeheal.evaluation.jobs import project_job
from codeheal.policy import as_is_time_limit, time_limit
from codeheal.forms.project.edits import ChangedDefinition as ChangedEdit
from codeheal.forms.project.edits import EditResult, Target, apply_reply, reply_blocks
from codeheal.forms.project.failing_first import failing_first
from codeheal.forms.project.line_candidates import functions_first
from codeheal.forms.project.lint import LintFinding, added_findings
from codeheal.forms.project.lint import describe as describe_findings
from codeheal.forms.project.repair_context import is_test_file, repair_scope
from codeheal.forms.project.suspicious import rank_lines
from codeheal.forms.project.task import TestCommand, parse_test_command
from codeheal.forms.project.workspace_store import workspace_files, workspace_of
from codeheal.forms.project.prompts import project_targets
from codeheal.sandboxes.base import RunResult, Sandbox
from codeheal.state import CheckFailure, Feedback, State, SuspiciousLine
from codeheal.steps import SandboxRun, Steps

NOT_APPLIED = "the reply was not applied"
APPLIED_KEPT = 512
"""Candidates whose applied edit is kept (a mutation screen and a few repair attempts)."""


def as_is_steps(
    sandbox: Sandbox, state: State, context: Context, session: str | None = None
) -> Steps[tuple[Feedback, list[SuspiciousLine]]]:
    """The project as it is tested, with each test's line coverage recorded: its feedback and
    its lines ranked by how suspicious they are (project/suspicious.py), those of the --target
    first. Raises InputError when its tests cannot test it (refuse_untestable)."""
    files = workspace_of(state)
    command = parse_test_command(state["test_command"])
    feedback, result = yield from _test_run(
        sandbox, files, command, as_is_time_limit(context), session, state, None, coverage=True)
    refuse_untestable(feedback, state["test_command"])
    coverage = coverage_by_test(result)
    unfinished = set(coverage) - set(feedback.get("tests_ran") or [])  # hung at the deadline, or crashed
    failed = set(feedback.get("tests_failed") or []) | unfinished
    ranking = rank_lines(coverage, failed, feedback["failures"], files)
    targets = {(target.file, target.function.rsplit(".", 1)[-1]) for target in project_targets(state)}
    return feedback, functions_first(ranking, files, targets)


def project_evaluation_steps(
    sandbox: Sandbox, candidate: str, state: State, context: Context, session: str | None = None
) -> Steps[tuple[Feedback, EditResult | None]]:
    """The feedback on one project-form candidate, and the edit it made: the reply applied
    to the project's files (a reply that cannot be applied, or that touches the tests, is a
    failed attempt saying why), the tamper scan of what the model wrote, the linter stage,
    then the tests in the sandbox: the failing ones alone first where pytest takes their node
    ids (failing_first), then the whole command, which must run and pass every test the
    project as it is ran; a change that fixes the failing tests and breaks others says which."""
    workspace = workspace_of(state)
    try:
        edit = applied_edit(state, candidate)
        _check_scope(edit, state)
    except EditRejected as exc:
        return attempt_feedback(error=f"{NOT_APPLIED}: {exc}"), None
    if context.tamper_scan and (tampering := tamper_feedback("\n".join(b.code for b in reply_blocks(candidate)), lying_dunders=True)):
        return tampering, edit
    lint = added_findings(workspace, edit.files, state["project"]) if context.lint else None
    if lint is not None and lint.findings:
        return lint_feedback(lint.findings), edit
    files = {**workspace, **edit.files}
    command = parse_test_command(state["test_command"])
    limit = time_limit(context, state.get("as_is_seconds"))
    failing = state.get("failing_tests") or []
    first = failing_first(command, failing, state.get("baseline_tests") or [], files)
    first_seconds = 0.0
    if first is not None:
        feedback, _ = yield from _test_run(sandbox, files, first, limit, session, state, failing)
        if not feedback["passed"] and set(feedback.get("tests_ran") or []) & set(failing):
            # Counted as a whole run: the tests that passed on the project as it is were not rerun.
            not_rerun = len(set(state.get("baseline_tests") or []) - set(failing))
            feedback["passed_count"] += not_rerun
            feedback["total"] += not_rerun
            if lint is not None and lint.unavailable:
                feedback["lint"] = [*feedback.get("lint", []), lint.unavailable]
            return feedback, edit
        # Passed, or ran none of them by their ids (another rootdir): the whole command decides.
        first_seconds = feedback["seconds"]
    feedback, _ = yield from _test_run(sandbox, files, command, limit, session, state, state.get("baseline_tests"))
    feedback["seconds"] = round(feedback["seconds"] + first_seconds, 3)
    if first is not None and not feedback["passed"] and feedback["error"] is None and feedback["failures"]:
        broken = sorted({f["test"] for f in feedback["failures"]})
        feedback["error"] = (f"the failing tests pass now, but the change breaks {len(broken)} other test(s): "
                             f"{', '.join(broken[:5])}")
    if lint is not None and lint.unavailable:
        feedback["lint"] = [*feedback.get("lint", []), lint.unavailable]
    return feedback, edit


@functools.lru_cache(maxsize=APPLIED_KEPT)
def _applied(project: str, key: str, candidate: str, hints: tuple[Target, ...]) -> EditResult | EditRejected:
    try:
        return apply_reply(workspace_files(project, key), candidate, hints=hints)
    except EditRejected as exc:
        return exc


def applied_edit(state: State, candidate: str) -> EditResult:
    """The candidate applied to the run's workspace (edits.apply_reply with the repair hints),
    computed once per workspace and candidate: the run reduces each candidate to its change
    before testing it (Form.candidate_key), and its test applies it again. Raises
    EditRejected as apply_reply does."""
    result = _applied(state["project"], state["workspace_key"], candidate, tuple(repair_hints(state)))
    if isinstance(result, EditRejected):
        raise result
    return result


def _test_run(
    sandbox: Sandbox, files: Mapping[str, str], command: TestCommand, limit: float, session: str | None,
    state: State, must_run: list[str] | None, *, coverage: bool = False,
) -> Steps[tuple[Feedback, RunResult]]:
    """One run of `command` on `files` in the sandbox, judged, and the run itself; `must_run`:
    the node ids that must run and pass (None: whatever ran); `coverage`: record each test's
    line coverage."""
    job = project_job(files, command, limit, session, state.get("interpreter"), coverage=coverage)
    result = yield SandboxRun(sandbox, job)
    if not (command.direct or reported(result)):
        feedback = output_feedback(result, files)  # only the exit code and the output tell
    else:
        feedback = run_feedback(result, None, must_run=must_run)
    feedback["time_limit_s"] = limit
    return feedback, result


def refuse_untestable(feedback: Feedback, test_command: str) -> None:
    """Raise InputError (before any model call) when the project as it is gives the model
    nothing to repair: no test ran, or every one broke in the tests' own code (a test file
    that does not import, every test's fixtures failing there). The model changes only the
    code under test, never the tests."""
    if feedback["timed_out"]:
        return
    failures = feedback["failures"]
    in_tests = [f for f in failures if not any(not is_test_file(frame["file"]) for frame in f["frames"])]
    ran = feedback.get("tests_ran") or []
    if not ran and not failures:
        problem = feedback["error"] or "no test ran"
    elif not ran and failures and len(in_tests) == len(failures):
        first = in_tests[0]
        problem = (f"{feedback['error'] or 'every test failed in its setup'}: {first['test']}: "
                   f"{first['exception']}: {(first['message'] or '').splitlines()[0] if first['message'] else ''}")
    else:
        return
    raise InputError(
        f"test command {test_command!r} cannot test the project as it is ({problem}); nothing for the "
        "model to repair. Check that the command names the tests, and that they import and set up"
    )


def repair_hints(state: State) -> list[Target]:
    """What settles a name the reply defines in several places: the --target, then the
    project functions on the failing traceback, innermost first."""
    frames = [
        Target(frame["file"], frame["function"])
        for failure in state.get("repair_failures") or []
        for frame in reversed(failure["frames"])
        if not is_test_file(frame["file"])
    ]
    return [*project_targets(state), *frames]


def lint_feedback(findings: list[LintFinding]) -> Feedback:
    """A change the linter stage refused, as the attempt's feedback."""
    return attempt_feedback(error=describe_findings(findings), failures=[
        CheckFailure(
            test="<lint>", exception=f.code, message=f"{f.file} line {f.line}: {f.message}", line=f.line,
            frames=[], expected=None, actual=None,
        )
        for f in findings
    ])


def _check_scope(edit: EditResult, state: State) -> None:
    """Refuse an edit of the tests, or of a function the failing tests do not reach."""
    touched = sorted({c.file for c in edit.changed if is_test_file(c.file)})
    if touched:
        raise EditRejected(
            f"the reply changes {', '.join(touched)}, part of the tests: fix the code under test, never the tests"
        )
    scope = repair_scope(state.get("repair_failures") or [], workspace_of(state), targets=project_targets(state))
    if scope is None:
        return
    outside = [f"{c.file}::{c.name}" for c in edit.changed if not _in_scope(c, scope)]
    if outside:
        raise EditRejected(
            f"the reply changes {', '.join(outside)}, which the failing tests do not reach: change "
            "only the functions on the failing path"
        )


def _in_scope(change: ChangedEdit, scope: set[tuple[str, str]]) -> bool:
    if change.kind in ("function", "method"):
        return (change.file, change.name.rsplit(".", 1)[-1]) in scope
    return change.file in {file for file, _ in scope}  # an import, or a small file rewritten whole
