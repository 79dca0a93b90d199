"""Judging one project-form candidate, each step in one home: the reply applied to the
project's files as targeted edits and checked against the run's scope (`applied`, in the
fan-out: edits.py, run.refusal), then in its test the tamper scan of what the model
wrote (evaluation/tamper_scan.py), the linter stage (lint.py), and the tests in the sandbox
with their feedback (job.py): those that failed on the project as it is first, and, when they
pass, the whole test command, under a time limit derived from the run of the project as it is
(rules.time_limit; a screened mutant's is shorter: rules.screen_time_limit), and each test
under a limit of its own learned there (time_limits.py); when they pass, the regression check
of the tests beyond the command that exercise the changed code (regression.py). The run of the
project as it is also records each test's line coverage, which ranks the suspicious lines."""

from __future__ import annotations

import re
from typing import cast

from codeheal.context import Context
from codeheal.errors import EditRejected, FlakyTestsError, InputError
from codeheal.evaluation.coverage import coverage_by_test
from codeheal.evaluation.feedback import attempt_feedback, tamper_feedback
from codeheal.forms.project.check_runs import as_is_check, both, change_check
from codeheal.forms.project.check_surface import silenced
from codeheal.forms.project.checker import Diagnostic
from codeheal.forms.project.diff import unified_diff
from codeheal.forms.project.edits import apply_reply, written_code
from codeheal.forms.project.executed import executed_functions
from codeheal.forms.project.job import judged_run, repair_runs
from codeheal.forms.project.line_candidates import functions_first
from codeheal.forms.project.lint import added_findings, lint_feedback
from codeheal.forms.project.mutations import default_lines
from codeheal.forms.project.regression import regression_steps
from codeheal.forms.project.test_paths import is_test_file
from codeheal.forms.project.run import (
    AsIs,
    ProjectRun,
    command_of,
    files_of,
    hints_of,
    refusal,
    targets_of,
)
from codeheal.forms.project.suspicious import rank_lines
from codeheal.forms.project.syntax_slips import found_slip, with_location
from codeheal.forms.project.time_limits import durations_of, hung_as_is, learned_limits
from codeheal.forms.project.workspace_store import workspace
from codeheal.rules import as_is_time_limit, screen_time_limit, time_limit
from codeheal.prompting.model_call import is_refused
from codeheal.sandboxes.base import Sandbox
from codeheal.state import (
    AS_IS,
    AppliedChange,
    CandidateJob,
    CheckFailure,
    Feedback,
    TestedCandidate,
)
from codeheal.steps import Steps

NOT_APPLIED = "the reply was not applied"
CANNOT_RUN = re.compile(r"\b(?:exit code|Error) 12[67]\b|failed to execute|No such file or directory|not found")
"""A command that could not start, or started a program that is not there (126, 127)."""


def as_is_steps(sandbox: Sandbox, job: CandidateJob, context: Context) -> Steps[TestedCandidate]:
    """The project as it is tested, with each test's line coverage recorded: its feedback, and
    the run's record with what it found (`as_is`: its failures, the tests it ran, its lines
    ranked by how suspicious they are, those of the --target first).
    Raises InputError when its tests cannot test it (refuse_untestable); a failing run is
    rerun once, and FlakyTestsError (an InputError) raised when it passes then. With --check the
    checker runs on it too (check_runs.as_is_check: its errors are failures, kept as
    `diagnostics`), and without a test command it alone."""
    run = cast(ProjectRun, job["form_run"])
    kept, targets = workspace(run["project"], run["workspace_key"]), targets_of(run)
    limit = as_is_time_limit(context)
    if run["command"] is None:  # the checker alone
        checked, found = yield from as_is_check(sandbox, run, kept, limit, job.get("session"))
        return TestedCandidate(index=job["index"], code=AS_IS, feedback=checked, form_run=ProjectRun(**{**run, "as_is": AsIs(
            failures=checked["failures"], tests_ran=[], tests_failed=[], seconds=checked["seconds"],
            suspicious=rank_lines({}, (), checked["failures"], kept.files), diagnostics=found)}))
    command = command_of(run["command"])
    feedback, result = yield from judged_run(sandbox, kept, command, limit, job.get("session"), run, None, coverage=True)
    slip = found_slip(feedback, kept.files)
    if slip is not None:  # a project module does not parse: a failure with its location, not bad input
        feedback = Feedback(**{**feedback, "failures": with_location(feedback["failures"], slip, kept.files),
                               "error": f"{slip['file']} line {slip['line']} does not parse ({slip['exception']}: "
                                        f"{slip['message']}), so the tests could not be loaded"})
    refuse_untestable(feedback, run["test_command"])
    if feedback["timed_out"]:
        feedback = hung_as_is(feedback, limit)
    if not feedback["passed"] and not feedback["timed_out"]:
        # Once more on the unchanged project: a failure that does not come back is the tests'
        # (timing, order, randomness), not a defect a change to the code would repair.
        again, _ = yield from judged_run(sandbox, kept, command, limit, job.get("session"), run, None)
        if again["passed"]:
            raise FlakyTestsError(
                f"the tests failed on the project as it is ({_first(run_failures(feedback))}), then passed on "
                "a rerun of it unchanged: flaky tests, not repaired. Make them deterministic and run codeheal again"
            )
    diagnostics: list[Diagnostic] | None = None
    if "check" in run:  # beside the tests: both must hold
        checked, diagnostics = yield from as_is_check(sandbox, run, kept, limit, job.get("session"))
        feedback = both(feedback, checked)
    failures, files = run_failures(feedback), kept.files
    target_functions = {(target.file, target.function.rsplit(".", 1)[-1]) for target in targets}
    coverage = coverage_by_test(result)
    unfinished = set(coverage) - set(feedback.get("tests_ran") or [])  # hung at the deadline, or crashed
    failed = set(feedback.get("tests_failed") or []) | unfinished
    ranking = rank_lines(coverage, failed, feedback["failures"], files, default_lines(files, coverage))
    as_is = AsIs(
        failures=failures, tests_ran=feedback.get("tests_ran") or [],
        tests_failed=feedback.get("tests_failed") or [],
        seconds=None if feedback["timed_out"] else feedback["seconds"],
        suspicious=functions_first(ranking, files, target_functions),
        test_limits=learned_limits(durations_of(result), set(feedback.get("tests_ran") or []) - failed, failed),
        executed=executed_functions(coverage, failed, files),
        **({"slip": slip} if slip is not None else {}),
        **({"diagnostics": diagnostics} if diagnostics is not None else {}),
    )
    return TestedCandidate(index=job["index"], code=AS_IS, feedback=feedback, form_run=ProjectRun(**{**run, "as_is": as_is}))


def applied(run: ProjectRun, candidate: str) -> AppliedChange:
    """The candidate applied to the run's files (edits.apply_reply with the scope's hints), and
    why it is refused if it is: it cannot be applied (then it changes nothing), or it edits the
    tests or a function the failing tests do not reach (run.refusal), or it stands for a prompt
    the model's server refused (model_call.refused_candidate). Called once per candidate
    (Form.prepare); the result is kept in state with the candidate."""
    if is_refused(candidate):
        return AppliedChange(files={}, changed=[], refused=candidate)
    try:
        edit = apply_reply(files_of(run), candidate, hints=hints_of(run))
    except EditRejected as exc:
        return AppliedChange(files={}, changed=[], refused=str(exc))
    refused = refusal(run["scope"], edit.changed) or (silenced(files_of(run), edit.files) if "check" in run else None)
    return AppliedChange(files=edit.files, changed=edit.changed, refused=refused)


def repair_steps(sandbox: Sandbox, job: CandidateJob, context: Context) -> Steps[TestedCandidate]:
    """One repair judged, from the change prepared with it (`applied`): a refused one is a
    failed attempt saying why; then the tamper scan of what the model wrote, the linter stage,
    with --check the checker (check_runs.change_check: a change it does not pass goes no
    further), the test runs (job.repair_runs) and, when they pass, the regression check
    (regression.regression_steps)."""
    run, change, code = cast(ProjectRun, job["form_run"]), job["change"], job["candidate"]
    as_is = run["as_is"]
    assert code is not AS_IS and as_is is not None
    if change["refused"] is not None:
        error = code if is_refused(code) else f"{NOT_APPLIED}: {change['refused']}"
        return TestedCandidate(index=job["index"], code=code, feedback=attempt_feedback(error=error))
    feedback = tamper_feedback(written_code(code), lying_dunders=True) if context.tamper_scan else None
    kept = workspace(run["project"], run["workspace_key"])
    files = kept.files
    lint = added_findings(files, change["files"], run["project"]) if feedback is None and context.project.lint else None
    if lint is not None and lint.findings:
        feedback = lint_feedback(lint.findings)
    with_change = kept._replace(files={**files, **change["files"]})
    checked = None
    if feedback is None and "check" in run:  # the checker first: it runs none of the code, and is quick
        checked = yield from change_check(sandbox, run, with_change, as_is_time_limit(context), job.get("session"))
        feedback = None if checked["passed"] and run["command"] is not None else checked
    if feedback is None and run["command"] is not None:
        limit = (screen_time_limit if job.get("screened") else time_limit)(context, as_is["seconds"])
        regression_limit = as_is_time_limit(context)
        commands = command_of(run["command"]), command_of(run["first_command"]) if run["first_command"] else None
        feedback = yield from repair_runs(sandbox, run, with_change, commands, limit, job.get("session"))
        if feedback["passed"]:
            feedback = yield from regression_steps(sandbox, run, kept, commands[0], change["files"], feedback,
                                                   context.project.regression, regression_limit, job.get("session"))
        feedback = both(feedback, checked) if checked is not None else feedback
    assert feedback is not None
    if lint is not None and lint.unavailable:
        feedback["lint"] = [*feedback.get("lint", []), lint.unavailable]
    diff = unified_diff(files, change["files"])
    return TestedCandidate(index=job["index"], code=code, feedback=feedback, changes=change["files"],
                           changed=change["changed"], diff=diff.text, changed_lines=diff.changed_lines)


def run_failures(feedback: Feedback) -> list[CheckFailure]:
    """The failures a repair is shown: the feedback's, or its error as one (a crash or a
    collection error of the whole run has no per-test failure)."""
    if feedback["failures"]:
        return list(feedback["failures"])
    return [CheckFailure(
        test="(the test run)", exception="Error", message=feedback["error"] or "the tests failed",
        line=None, frames=[], expected=None, actual=None,
    )]


def refuse_untestable(feedback: Feedback, test_command: str) -> None:
    """Raise InputError (before any model call) when the project as it is gives the model
    nothing to repair: a command that cannot run at all, no test ran, failures with no Python
    frame in the project (codeheal repairs Python), or, under pytest, every test broken in the
    tests' own code (a test file that does not import, every test's fixtures failing there). A
    failure through a project module (an import or collection error in one included) is a
    repair target, and so is a test's own failed assertion read from a command's output."""
    reads_output = "tests_ran" not in feedback  # a command codeheal cannot see inside: its exit code decides
    if feedback["timed_out"] or (feedback["passed"] and reads_output):
        return
    failures = feedback["failures"]
    if any(not is_test_file(frame["file"]) for failure in failures for frame in failure["frames"]):
        return
    ran = feedback.get("tests_ran") or []
    if not failures and not ran and CANNOT_RUN.search(feedback["error"] or ""):
        problem = feedback["error"]
    elif reads_output and not any(failure["frames"] for failure in failures):
        raise InputError(
            f"test command {test_command!r} fails, but no failure has a Python frame in the project "
            f"({feedback['error'] or _first(failures)}): codeheal repairs Python code, so there is nothing "
            "for it to change. Check that the command runs the project's Python tests"
        )
    elif reads_output or ran:
        return
    elif not failures:
        problem = feedback["error"] or "no test ran"
    else:
        problem = f"{feedback['error'] or 'every test failed in its setup'}: {_first(failures)}"
    raise InputError(
        f"test command {test_command!r} cannot test the project as it is ({problem}); nothing for the "
        "model to repair. Check that the command names the tests, and that they import and set up"
    )


def _first(failures: list[CheckFailure]) -> str:
    first = failures[0]
    message = first["message"].splitlines()[0] if first["message"] else ""
    return f"{first['test']}: {first['exception']}: {message}"
