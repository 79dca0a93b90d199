"""The evaluator: runs the candidates against the tests in a sandbox and records the attempt
with its Feedback. What happens next is the loop policy's decision (graph/policy.py)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codeheal.context import Context, current_context
from codeheal.errors import EditRejected
from codeheal.nodes.checks import TEST_MODULE, build_test_module, check_names, parse_tests
from codeheal.nodes.feedback import attempt_feedback, run_feedback, summarize, syntax_feedback, tamper_feedback
from codeheal.nodes.fix_prompts import project_targets, run_failures
from codeheal.nodes.lint import lint_notes
from codeheal.nodes.model_call import NO_USAGE
from codeheal.nodes.prepare import is_project
from codeheal.nodes.steps import SandboxRun, Steps, arun_steps, run_steps
from codeheal.progress import AttemptTested, emit
from codeheal.project.edits import ChangedDefinition as ChangedEdit
from codeheal.project.edits import EditResult, Target, apply_reply, reply_blocks
from codeheal.project.lint import LintFinding, added_findings
from codeheal.project.lint import describe as describe_findings
from codeheal.project.repair_context import is_test_file, repair_scope
from codeheal.project.task import UNCHANGED, pytest_args
from codeheal.sandboxes import sandbox_for
from codeheal.sandboxes.base import Job, RunResult, Sandbox
from codeheal.state import Attempt, ChangedDefinition, CheckFailure, Feedback, State

PLUGIN_MODULE = "codeheal_report"
PLUGIN_SOURCE = (Path(__file__).with_name("pytest_plugin.py")).read_text(encoding="utf-8")
PYTEST_ARGS = (
    "-m", "pytest", "-p", PLUGIN_MODULE, "-p", "no:cacheprovider", "-p", "no:terminal", "-s",
    TEST_MODULE,
)
NO_CODE = "no code in reply: the reply had no Python code block"
PROJECT_PYTEST_ARGS = ("-m", "pytest", "-p", PLUGIN_MODULE, "-p", "no:cacheprovider")
NOT_APPLIED = "the reply was not applied"


def make_job(candidate: str, tests: str, timeout_s: float, session: str | None = None) -> Job:
    """The sandbox job that runs the tests against one candidate."""
    return Job(
        files={
            "solution.py": candidate,
            TEST_MODULE: build_test_module(tests),
            f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE,
            "pytest.ini": "[pytest]\n",
        },
        python_args=PYTEST_ARGS,
        timeout_s=timeout_s,
        report=True,
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        session=session,
    )


def project_job(
    files: Mapping[str, str], pytest_args: Sequence[str], timeout_s: float, session: str | None = None,
    python: str | None = None,
) -> Job:
    """The sandbox job that runs a project's test command on a copy of its files. The report
    plugin goes beside them and is passed with -p; the project's own configuration, conftest
    and installed pytest plugins apply (no codeheal pytest.ini, no plugin autoload switch)."""
    return Job(
        files={**files, f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE},
        python_args=(*PROJECT_PYTEST_ARGS, *pytest_args),
        timeout_s=timeout_s,
        report=True,
        session=session,
        python=python,
    )


def feedback_without_running(candidate: str, tamper_scan: bool = True) -> Feedback | None:
    """Feedback for a candidate that needs no sandbox to judge: none, a SyntaxError, or
    (with `tamper_scan`) code that reaches into the test harness."""
    if not candidate.strip():
        return attempt_feedback(error=NO_CODE)
    return syntax_feedback(candidate) or (tamper_feedback(candidate) if tamper_scan else None)


def evaluation_steps(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Steps[Feedback]:
    """The feedback on one candidate: judged without running when it can be, else tested."""
    feedback = feedback_without_running(candidate, tamper_scan)
    if feedback is not None:
        return feedback
    result = yield SandboxRun(sandbox, make_job(candidate, tests, timeout_s, session))
    feedback = _from_run(result, tests)
    return feedback if feedback["passed"] else {**feedback, "lint": lint_notes(candidate)}


def project_evaluation_steps(
    sandbox: Sandbox, candidate: str, state: State, context: Context, session: str | None = None
) -> Steps[tuple[Feedback, EditResult | None]]:
    """The feedback on one project-form candidate, and the edit it made: the reply applied
    to the project's files (a reply that cannot be applied, or that touches the tests, is a
    failed attempt saying why), the tamper scan of what the model wrote, the linter stage,
    then the test command in the sandbox."""
    workspace = state["workspace"]
    edit = None
    if candidate != UNCHANGED:
        try:
            edit = apply_reply(workspace, candidate, hints=repair_hints(state))
            _check_scope(edit, state)
        except EditRejected as exc:
            return attempt_feedback(error=f"{NOT_APPLIED}: {exc}"), None
        if context.tamper_scan and (tampering := tamper_feedback("\n".join(b.code for b in reply_blocks(candidate)))):
            return tampering, edit
        if context.lint and (findings := added_findings(workspace, edit.files, state["project"])):
            return lint_feedback(findings), edit
    files = {**workspace, **(edit.files if edit else {})}
    job = project_job(files, pytest_args(state["test_command"]), context.timeout_s, session, state.get("interpreter"))
    result = yield SandboxRun(sandbox, job)
    return run_feedback(result, None, project=True), edit


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


def evaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Feedback:
    """The feedback on one candidate (blocking). Raises SandboxError when the sandbox could
    not run it."""
    return run_steps(evaluation_steps(sandbox, candidate, tests, timeout_s, session, tamper_scan=tamper_scan))


async def aevaluate_candidate(
    sandbox: Sandbox, candidate: str, tests: str, timeout_s: float, session: str | None = None,
    *, tamper_scan: bool = True,
) -> Feedback:
    """evaluate_candidate without blocking the event loop."""
    return await arun_steps(evaluation_steps(sandbox, candidate, tests, timeout_s, session, tamper_scan=tamper_scan))


def make_evaluator(sandbox: Sandbox | None = None) -> Callable[[State], Steps[dict]]:
    """The evaluator node's body: tests the candidates, records the attempt and its
    Feedback. `sandbox` overrides the one named in the run's Context."""

    def evaluator(state: State) -> Steps[dict]:
        context = current_context()
        chosen = sandbox or sandbox_for(context)
        session = state.get("sandbox_session") or uuid.uuid4().hex
        choice = Choice()
        update: dict = {"sandbox_session": session}
        for candidate in candidates_to_test(state):
            edit = None
            if is_project(state):
                feedback, edit = yield from project_evaluation_steps(chosen, candidate, state, context, session)
                if candidate == UNCHANGED:
                    update["repair_failures"] = run_failures(feedback)
            else:
                feedback = yield from evaluation_steps(
                    chosen, candidate, state["tests"], context.timeout_s, session, tamper_scan=context.tamper_scan
                )
            if choice.add(candidate, feedback, edit):
                break
        return {**_record(state, choice), **update}

    return evaluator


def candidates_to_test(state: State) -> list[str]:
    """The distinct candidates, new code first. Code that an earlier attempt of this run
    already failed with is left out when there is anything new: it would fail the same way."""
    distinct = list(dict.fromkeys(state.get("candidates") or [""]))
    failed_before = {attempt["code"] for attempt in state.get("history") or []}
    new = [code for code in distinct if code not in failed_before]
    return new or distinct[:1]


@dataclass
class Choice:
    """The best of an attempt's candidates so far: the one that passed the most checks, the
    earlier one among equals; and the sandbox time all of them took."""

    code: str = ""
    feedback: Feedback | None = None
    tested: int = 0
    sandbox_seconds: float = 0.0
    edit: EditResult | None = None
    """Project form: what the chosen candidate changed."""

    def add(self, code: str, feedback: Feedback, edit: EditResult | None = None) -> bool:
        """Take one tested candidate into account; True once one has passed (stop testing)."""
        self.tested += 1
        self.sandbox_seconds += feedback["seconds"]
        if self.feedback is None or feedback["passed_count"] > self.feedback["passed_count"] or (
            feedback["passed"] and not self.feedback["passed"]
        ):
            self.code, self.feedback, self.edit = code, feedback, edit
        return feedback["passed"]

    def attempt_feedback(self) -> Feedback:
        """The chosen candidate's feedback, timed as the whole attempt's sandbox work."""
        assert self.feedback is not None, "no candidate was tested"
        return {**self.feedback, "seconds": round(self.sandbox_seconds, 3)}


def _from_run(result: RunResult, tests: str) -> Feedback:
    return run_feedback(result, check_names(parse_tests(tests)))


def _record(state: State, choice: Choice) -> dict:
    """The attempt, its Feedback and what it cost, added to the run's history."""
    feedback = choice.attempt_feedback()
    attempts = (state.get("attempts") or 0) + 1
    generation = state.get("generation") or NO_USAGE
    record = Attempt(
        attempt=attempts,
        code=choice.code,
        candidates_tested=choice.tested,
        fresh_start=bool(state.get("fresh_start")),
        summary=summarize(feedback),
        passed_count=feedback["passed_count"],
        total=feedback["total"],
        reflection=None,
        tokens=generation["tokens"],
        prompt_tokens=generation["prompt_tokens"],
        completion_tokens=generation["completion_tokens"],
        seconds=round(generation["seconds"] + feedback["seconds"], 3),
    )
    if choice.edit is not None:
        record["changes"] = choice.edit.files
        record["changed"] = [ChangedDefinition(file=c.file, name=c.name, kind=c.kind) for c in choice.edit.changed]
    emit(AttemptTested(
        kind="tests_result", attempt=attempts, passed=feedback["passed"],
        passed_count=feedback["passed_count"], total=feedback["total"],
        summary=record["summary"], seconds=record["seconds"],
    ))
    return {
        "attempts": attempts,
        "feedback": feedback,
        "history": [*(state.get("history") or []), record],
        "candidates": [],
    }
