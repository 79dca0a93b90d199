"""The module form (`codeheal solve`, `graph.invoke({"task", "tests"})`): a new solution.py
written against the user's tests."""

from __future__ import annotations

import ast
import hashlib

from langchain_core.messages import BaseMessage

from codeheal.context import Context
from codeheal.environment import active_virtualenv
from codeheal.errors import InputError
from codeheal.evaluation.checks import one_assert, parse_tests
from codeheal.evaluation.examples import (
    called_functions,
    task_check_names,
    task_checks,
    user_checks,
)
from codeheal.forms.base import Draw, Form
from codeheal.forms.module.candidate import evaluation_steps
from codeheal.forms.module.environment import refuse_missing_imports, tests_python
from codeheal.forms.module.prompts import (
    fitted_actor_messages,
    fitted_reflector_messages,
    tested_function,
)
from codeheal.forms.module.request import check_request
from codeheal.llm.factory import MAX_TOKENS
from codeheal.rules import sampling_temperature, time_limit
from codeheal.progress import RunStarted
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.model_window import fitted_window
from codeheal.prompting.parts import CLOSING_FENCE
from codeheal.sandboxes.base import Sandbox
from codeheal.state import (
    Attempt,
    Candidate,
    CandidateJob,
    Prepared,
    State,
    Status,
    TestedCandidate,
)
from codeheal.steps import Steps
from codeheal.syntax import parse_code
from codeheal.tokens import TokenCounter

ONE_ASSERT_NOTE = (
    "passed on one assert: it checks one case, and code that gets the others wrong passes it too "
    "(on MBPP, whose problems show one assert, 1 pass in 5 failed the problem's other asserts); "
    "add asserts for the other cases"
)
"""The end note of a pass whose tests, the task's examples included, are one assert."""


def validate_input(state: State) -> ast.Module:
    """Raise InputError for module-form input no model call could fix; the parsed tests."""
    module = check_request(state.task, state.tests, state.entry_point)
    code = state.starting_code
    if code is not None and not isinstance(code, str):
        raise InputError(f"starting_code must be a string, got {type(code).__name__}")
    return module


def candidate_functions(tests: ast.Module) -> list[str]:
    """The candidate's functions the tests use: those they call by a name they take from
    nowhere else (called_functions), then those they import from `solution` (`from solution
    import f`, whose examples in the task text are checked as well)."""
    imported = [alias.asname or alias.name for node in ast.walk(tests)
                if isinstance(node, ast.ImportFrom) and node.module == "solution" for alias in node.names if alias.name != "*"]
    return list(dict.fromkeys([*called_functions(tests), *imported]))


def module_candidate(reply: str) -> str:
    """The candidate a model reply gives: its code; a reply without code is an empty candidate,
    a failed attempt ("no code in reply")."""
    return extract_code(reply) or ""


class ModuleForm(Form):
    """A module written from the task against the tests, tested as solution.py beside them."""

    name = "module"
    run_fields = ("tests", "entry_point", "python")
    task_keys = ("task", "tests")
    output_keys = ("task_checks",)

    def start(self, state: State, context: Context) -> tuple[dict, RunStarted]:
        tests = validate_input(state)
        python = tests_python(state.python, active_virtualenv())
        if context.sandbox == "local":
            refuse_missing_imports(tests, python)
        starting_code = state.starting_code or ""
        function = tested_function(state)
        candidates = [starting_code] if starting_code.strip() else []
        checks = (task_checks(state.task, tests, [function] if function else candidate_functions(tests))
                  if context.module.task_examples else [])
        started = RunStarted(kind="run_started", first="starting_code" if candidates else "model", files=0)
        if checks:
            started["task_checks"] = len(checks)
        return {"python": python, "candidates": candidates, "probe_function": function, "task_checks": checks}, started

    def record(
        self, state: State, best: TestedCandidate, tested: list[TestedCandidate], context: Context
    ) -> tuple[dict, dict]:
        names = task_check_names(state)
        feedback = best["feedback"]
        judged = {"in_test_process": feedback["in_test_process"]} if "in_test_process" in feedback else {}
        return {"task_checks_failed": sum(f["test"] in names for f in feedback["failures"]), **judged}, {}

    def outcome(self, state: State, best: Attempt | None, status: Status) -> tuple[dict, str | None]:
        if best is not None and status == "passed" and one_assert(parse_tests(user_checks(state))):
            return {}, ONE_ASSERT_NOTE
        if best is None or status in ("passed", "accepted"):
            return {}, None
        failed = best.get("task_checks_failed") or 0
        if not failed or best["passed_count"] + failed != best["total"]:  # the user's tests failed too
            return {}, None
        return {}, (f"the best code passes your tests and fails {failed} example(s) from the task text; if the "
                    "task's examples only illustrate, run again with --no-task-examples")

    def is_retry(self, state: State) -> bool:
        # Starting code may come from a model (HumanEval's shared attempt 1): it counts.
        return bool(state.attempts)

    def actor_prompt(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> tuple[list[BaseMessage], tuple[str, ...]]:
        history = state.history
        last_code = None  # None: no failure shown; "": one failed, its code is not shown
        if history and not fresh:
            last_code = history[-1]["code"] if context.policy.show_failed_code else ""
        messages = fitted_actor_messages(
            window=fitted_window(context, history),
            reply_tokens=MAX_TOKENS,
            counter=counter,
            task=state.task,
            tests=user_checks(state),
            entry_point=state.entry_point,
            reflections=[] if fresh else state.reflections,
            memory=context.policy.memory,
            last_code=last_code,
            last_feedback=None if fresh else state.feedback,
            prefill=prefill,
        )
        return messages, (CLOSING_FENCE,) if prefill else ()

    def draws(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> list[Draw]:
        """One call: the actor's prompt, one reply on the first attempt, Policy.retry_samples on
        a retry (rules.sampling_temperature)."""
        messages, stop = self.actor_prompt(state, context, fresh=fresh, prefill=prefill, counter=counter)
        retry = self.is_retry(state)
        rules = self.policy_for(context.policy)
        return [Draw(
            messages, stop, samples=rules.retry_samples if retry else 1,
            temperature=sampling_temperature(state, rules, retry=retry), candidate=module_candidate,
        )]

    def prepare(self, state: State, candidate: Candidate) -> Prepared:
        """Code that parses to the same syntax tree is one candidate (it differs only in
        formatting or comments, and passes or fails alike); code that does not parse, by its text."""
        try:
            tree = ast.dump(parse_code(candidate or ""))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Prepared(key=candidate or "", size=0)
        return Prepared(key="ast:" + hashlib.sha256(tree.encode()).hexdigest(), size=0)

    def reflector_prompt(
        self, state: State, context: Context, reply_tokens: int, counter: TokenCounter
    ) -> list[BaseMessage]:
        return fitted_reflector_messages(
            window=fitted_window(context, state.history), reply_tokens=reply_tokens, counter=counter,
            task=state.task, tests=user_checks(state), entry_point=state.entry_point,
            code=state.history[-1]["code"], feedback=state.feedback)

    def test_steps(self, sandbox: Sandbox, job: CandidateJob, context: Context) -> Steps[TestedCandidate]:
        code = job["candidate"]
        feedback = yield from evaluation_steps(
            sandbox, code, job["tests"], time_limit(context), job.get("session"), tamper_scan=context.tamper_scan,
            entry_point=job.get("entry_point"), python=job.get("python"),
        )
        return TestedCandidate(index=job["index"], code=code, feedback=feedback)
