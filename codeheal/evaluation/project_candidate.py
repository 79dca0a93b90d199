"""The project form's evaluation of one candidate: the reply applied to the project's files as
targeted edits (refused when it reaches beyond the failing path or into the tests), the tamper
scan of what the model wrote, the linter stage, then the project's test command."""

from __future__ import annotations

from codeheal.context import Context
from codeheal.errors import EditRejected, InputError
from codeheal.evaluation.feedback import attempt_feedback, output_feedback, reported, run_feedback, tamper_feedback
from codeheal.evaluation.jobs import project_job
from codeheal.project.edits import ChangedDefinition as ChangedEdit
from codeheal.project.edits import EditResult, Target, apply_reply, reply_blocks
from codeheal.project.lint import LintFinding, added_findings
from codeheal.project.lint import describe as describe_findings
from codeheal.project.repair_context import is_test_file, repair_scope
from codeheal.project.task import parse_test_command
from codeheal.prompting.fix_prompts import project_targets
from codeheal.sandboxes.base import Sandbox
from codeheal.state import AS_IT_IS, Candidate, CheckFailure, Feedback, State
from codeheal.steps import SandboxRun, Steps

NOT_APPLIED = "the reply was not applied"


def project_evaluation_steps(
    sandbox: Sandbox, candidate: Candidate, state: State, context: Context, session: str | None = None
) -> Steps[tuple[Feedback, EditResult | None]]:
    """The feedback on one project-form candidate, and the edit it made: the reply applied
    to the project's files (a reply that cannot be applied, or that touches the tests, is a
    failed attempt saying why), the tamper scan of what the model wrote, the linter stage,
    then the test command in the sandbox."""
    workspace = state["workspace"]
    edit = None
    if candidate is not AS_IT_IS:
        try:
            edit = apply_reply(workspace, candidate, hints=repair_hints(state))
            _check_scope(edit, state)
        except EditRejected as exc:
            return attempt_feedback(error=f"{NOT_APPLIED}: {exc}"), None
        if context.tamper_scan and (tampering := tamper_feedback("\n".join(b.code for b in reply_blocks(candidate)), lying_dunders=True)):
            return tampering, edit
        if context.lint and (findings := added_findings(workspace, edit.files, state["project"])):
            return lint_feedback(findings), edit
    files = {**workspace, **(edit.files if edit else {})}
    command = parse_test_command(state["test_command"])
    job = project_job(files, command, context.timeout_s, session, state.get("interpreter"))
    result = yield SandboxRun(sandbox, job)
    if not (command.direct or reported(result)):
        return output_feedback(result, files), edit  # only the exit code and the output tell
    must_run = None if candidate is AS_IT_IS else state.get("baseline_tests")
    feedback = run_feedback(result, None, must_run=must_run)
    if candidate is AS_IT_IS:
        refuse_untestable(feedback, state["test_command"])
    return feedback, edit


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
    scope = repair_scope(state.get("repair_failures") or [], state["workspace"], targets=project_targets(state))
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
