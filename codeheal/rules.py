"""The loop's rules: which attempt is best, how many attempts and tokens a run may use, when a
run is stuck, where the loop goes after each step, and how a run ends. Nodes do their one
job; these rules decide the run."""

from __future__ import annotations

import ast
import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from codeheal.context import Context, Policy, model_name
from codeheal.state import Attempt, CheckFailure, Feedback, State, Status

FailureKind = Literal["no_code", "syntax", "timeout", "crash", "name", "type", "format", "value", "opaque"]
"""What a failed attempt's feedback tells (failure_kind)."""
SHOWN_KINDS: frozenset[str] = frozenset({"crash", "name", "type", "format"})
"""Kinds whose failure carries what the prompt lacked (where the code crashed, a name or
signature, the type or shape wanted, the exact text wanted): routed by kind, a retry after one
is shown it. After any other kind, a wrong value of the right kind above all (HumanEval: the
embedded models mostly repeat a shown wrong value), the retry is a fresh sample."""
NAME_ERRORS = frozenset({"NameError", "AttributeError", "ImportError", "ModuleNotFoundError", "UnboundLocalError"})
SIGNATURE_HINTS = ("positional argument", "keyword argument", "argument", "not callable")
AfterEvaluation = Literal["reflector", "actor", "review", "selector", "finish"]
MIN_COMPLETION_TOKENS = 32
"""A call that could not be allowed even this many completion tokens is not made."""
DEFAULT_TIMEOUT_S = 10.0
AS_IS_TIMEOUT_S = 120.0
"""The project as it is, when the Context sets no limit: real test files take tens of seconds."""
AS_IS_FACTOR = 3
"""A repair's test run may take this many times the run of the project as it is."""
SCREEN_MIN_S = 4.0
"""The least time limit of a screened mutant's test run (screen_time_limit)."""
TEST_FACTOR = 5
"""A test that passed on the project as it is may take this many times its own time there in a
candidate's run (per_test_limit)."""
TEST_FLOOR_S = 1.0
"""The least time limit of one test (per_test_limit): a test of milliseconds is not stopped by
the noise of a busy machine."""
SCREEN_RUNS = 20
"""The screen (State.screen) may take this many runs of the project as it is (screen_budget)."""
SCREEN_BUDGET_MIN_S = 120.0
"""The least time of the screen (screen_budget): a project of fast tests screens all its mutants
(QuixBugs' screens that healed took up to 97 s on a loaded 2-core machine)."""
SCREEN_SHARE = 0.5
"""The most of the run's time left the screen may take (screen_budget): the rest is the model's."""
MIN_CALL_S = 5.0
"""The least time left of the run (Context.deadline_s) to start more work in: with less, no
attempt, reflection or batch of candidates starts, and the run ends with status "deadline"."""
MAX_RETRY_TEMPERATURE = 1.0
"""Policy.temperature_step raises retry temperatures up to this (the 0.5B model's replies
turn to noise well before 2)."""


def time_limit(context: Context, as_is_seconds: float | None = None) -> float:
    """The time limit of one test run: the Context's when set; else, once the project as it is
    ran in `as_is_seconds`, AS_IS_FACTOR times that, at least DEFAULT_TIMEOUT_S (which is also
    the limit when that run did not finish: `as_is_seconds` None)."""
    if context.timeout_s is not None:
        return context.timeout_s
    return DEFAULT_TIMEOUT_S if as_is_seconds is None else max(DEFAULT_TIMEOUT_S, AS_IS_FACTOR * as_is_seconds)


def screen_time_limit(context: Context, as_is_seconds: float | None) -> float:
    """The time limit of one test run of a candidate written without a model (`screen`):
    AS_IS_FACTOR times the run of the project as it is, at least SCREEN_MIN_S, never above
    `time_limit`. A mutant costs no model call and most keep the bug: one that runs past this
    is dropped rather than waited for, and the model's repairs still get the full
    `time_limit`. When the project as it is did not finish, how long a right fix runs is not
    known (QuixBugs levenshtein: the defect makes the tests slow, and the fix takes over 4 s):
    the full `time_limit`."""
    limit = time_limit(context, as_is_seconds)
    return limit if as_is_seconds is None else min(limit, max(SCREEN_MIN_S, AS_IS_FACTOR * as_is_seconds))


def screen_budget(as_is_seconds: float | None, left: float | None) -> float | None:
    """The time the screen may take, from the project's own test time (`as_is_seconds`: its run
    as it is; None when that did not finish) and the run's time `left` (None: no deadline):
    SCREEN_RUNS runs of the project as it is, at least SCREEN_BUDGET_MIN_S, at most SCREEN_SHARE of
    the time left (the model's attempts get the rest); that share when the project as it is did
    not finish (how long its mutants run is not known: QuixBugs `sqrt` hangs as it is, and its
    screen healed it in 97 s); None: no bound. Its mutants run only the tests that failed
    (failing_first), each under screen_time_limit, so most of them fit."""
    if left is None:
        return None
    share = SCREEN_SHARE * max(left, 0.0)
    if as_is_seconds is None:
        return round(share, 1)
    return round(min(max(SCREEN_BUDGET_MIN_S, SCREEN_RUNS * as_is_seconds), share), 1)


def screen_left(state: State, now: float | None = None) -> float | None:
    """Seconds left of the screen's time (State.screen_plan) at `now` while its attempt runs
    (the screen's candidates are being tested: `screened`, nothing written yet), else None."""
    plan = state.screen_plan
    left = seconds_left(state, now)
    if plan is None or left is None or not state.screened or state.written:
        return None
    return left - plan["ends_with_left"]


def screen_time_up(state: State) -> bool:
    """Whether the screen's time is up: no more of its batches start."""
    left = screen_left(state)
    return left is not None and left <= 0


def job_seconds_left(state: State) -> float | None:
    """The time a candidate sent now may take, all its test runs together: the run's time left,
    the screen's when less (None: no deadline)."""
    times = [t for t in (seconds_left(state), screen_left(state)) if t is not None]
    return max(min(times), 0.0) if times else None


def per_test_limit(as_is_seconds: float) -> float:
    """The time limit of one test in a candidate's run, from the seconds it took on the project
    as it is (its body, not its fixtures): TEST_FACTOR times that, at least
    TEST_FLOOR_S. A candidate that hangs in a test of milliseconds is stopped in about a second,
    not at its run's limit (`time_limit`, `screen_time_limit`), which still bounds the run."""
    return round(max(TEST_FLOOR_S, TEST_FACTOR * as_is_seconds), 3)


def as_is_time_limit(context: Context) -> float:
    """The time limit of the run of the project as it is: the Context's when set, else AS_IS_TIMEOUT_S."""
    return AS_IS_TIMEOUT_S if context.timeout_s is None else context.timeout_s


def deadline_from_now(context: Context) -> float:
    """The deadline (State.deadline) of a run that starts now, or goes on now after a
    reviewer's retry (the time a human took is not the run's): Context.deadline_s from now."""
    return time.time() + context.deadline_s


def seconds_left(state: State, now: float | None = None) -> float | None:
    """Seconds until the run's deadline (State.deadline) at `now` (time.time() when not
    given), below 0 once it passed; None before prepare set it."""
    if state.deadline is None:
        return None
    return state.deadline - (time.time() if now is None else now)


def out_of_time(state: State, now: float | None = None) -> bool:
    """Whether too little of the run's time is left to start more work: under MIN_CALL_S."""
    left = seconds_left(state, now)
    return left is not None and left < MIN_CALL_S


def call_timeout(state: State) -> float | None:
    """How long a model call started now may run: until the run's deadline (None: no bound)."""
    left = seconds_left(state)
    return None if left is None else max(left, 0.0)


def deadline_in(seconds: float | None) -> float | None:
    """The moment `seconds` from now (None: none)."""
    return None if seconds is None else time.time() + seconds


def test_run_limit(limit: float, deadline: float | None) -> float:
    """The time limit of a test run that starts now: `limit`, or the time left until the run's
    `deadline` (State.deadline) when less, at least TEST_FLOOR_S (None: no deadline)."""
    if deadline is None:
        return limit
    return min(limit, max(deadline - time.time(), TEST_FLOOR_S))


def attempt_limit(state: State, context: Context) -> int:
    """How many attempts this run may use: the limit a reviewer granted (counted from the
    attempts made), else the Context's cap, and one more once the run screened candidates
    written without a model (`screen`): that attempt costs no model call and is made once."""
    return state.attempt_limit or context.max_attempts + bool(state.screened)


def best_attempt(history: list[Attempt]) -> Attempt:
    """The run's best attempt: one whose evaluation passed, else the one that passed the most
    checks; the latest one among equals (it was written with the most feedback), code before
    no code. (Totals change between attempts, with skips or parametrisation: a count alone
    could prefer a failing attempt to the one that passed.)"""
    return max(reversed(history), key=lambda a: (bool(a.get("passed")), a["passed_count"], bool(a["code"].strip())))


def replaces_best(candidate: Feedback, best: Feedback, *, smaller: bool = False) -> bool:
    """Whether a candidate of an attempt, tested after the attempt's best so far, takes its
    place: of two that passed, the one with the smaller change (`smaller`: the candidate's
    is smaller, Prepared.size), else the one that passed more checks wins; the earlier
    among equals (candidates are in the order they were drawn: the first is the greedy one,
    and the starting code before what a model wrote)."""
    if best["passed"]:
        return candidate["passed"] and smaller
    return candidate["passed"] or candidate["passed_count"] > best["passed_count"]


def tokens_spent(state: State) -> int:
    """Model tokens this run has used so far, prompts and completions."""
    return sum(attempt["tokens"] for attempt in state.history)


def completion_allowance(state: State, context: Context, *, prompt_tokens: int, requests: int,
                         samples: int, wanted: int, already: int = 0) -> int:
    """Completion tokens each of `samples` replies may use so that the next call (made as
    `requests` requests of `prompt_tokens` each, after calls of this step that used `already`
    tokens) keeps the run within `Context.max_tokens`; 0 when not even MIN_COMPLETION_TOKENS
    fit (the call must not be made)."""
    if context.max_tokens is None:
        return wanted
    left = context.max_tokens - tokens_spent(state) - already - prompt_tokens * requests
    per_sample = min(wanted, left // samples)
    return per_sample if per_sample >= MIN_COMPLETION_TOKENS else 0


def sampling_temperature(state: State, rules: Policy, *, retry: bool) -> float:
    """The temperature of the next attempt's samples: Policy.temperature for the first,
    retry_temperature for the first retry, raised by temperature_step for each retry after it."""
    if not retry:
        return rules.temperature
    later = max((state.attempts or 1) - 1, 0)
    ceiling = max(rules.retry_temperature, MAX_RETRY_TEMPERATURE)
    return round(min(rules.retry_temperature + rules.temperature_step * later, ceiling), 3)


def informative(feedback: Feedback) -> bool:
    """Whether a failure tells the model something it can use: a failed check that shows the
    wrong value (the check's own line names the call), or a crash whose traceback reaches the
    code. Not: a syntax error, a timeout, a crash on loading, a check without values."""
    return any(
        failure["test"] != "<compile>" and (
            failure["expected"] is not None
            or (failure["exception"] != "AssertionError" and failure["line"] is not None)
        )
        for failure in feedback["failures"]
    )


def failure_kind(feedback: Feedback) -> FailureKind:
    """What a failed attempt's feedback tells, from its first failure that tells most: no code,
    a syntax error, a timeout, a name or signature error, a value of the wrong type or shape, a
    format difference (two texts, one inside the other or equal but for case and spacing), a
    crash inside the candidate, a wrong value of the right kind, or a failure without values."""
    if feedback["timed_out"]:
        return "timeout"
    failures = feedback["failures"]
    if any(f["test"] == "<compile>" for f in failures):
        return "syntax"
    if not failures:
        return "no_code" if (feedback["error"] or "").startswith("no code") else "opaque"
    kinds = [_check_kind(f) for f in failures]
    return min(kinds, key=_KIND_ORDER.index)


_KIND_ORDER: tuple[FailureKind, ...] = ("name", "type", "format", "crash", "value", "opaque")


def _check_kind(failure: CheckFailure) -> FailureKind:
    exception, message = failure["exception"], failure["message"] or ""
    if exception in NAME_ERRORS or (exception == "TypeError" and any(h in message for h in SIGNATURE_HINTS)):
        return "name"
    if exception in ("TypeError", "ValueError", "IndexError", "KeyError") and failure["line"] is not None:
        return "type" if exception == "TypeError" else "crash"
    if exception != "AssertionError":
        return "crash" if failure["line"] is not None else "opaque"
    if failure["expected"] is None or failure["actual"] is None:
        return "opaque"
    return _compare_kind(failure["expected"], failure["actual"])


def _compare_kind(expected: str, actual: str) -> FailureKind:
    """A wrong value's kind from the reprs of the value wanted and the value got."""
    want, got = _literal(expected), _literal(actual)
    if want is _UNREADABLE or got is _UNREADABLE:
        return "value"
    if type(want) is not type(got) and not (isinstance(want, (int, float)) and isinstance(got, (int, float))):
        return "type"
    if isinstance(want, (list, tuple, dict, set)) and len(want) != len(got):
        return "type"
    if isinstance(want, str) and (want in got or got in want or _squeezed(want) == _squeezed(got)):
        return "format"
    return "value"


_UNREADABLE = object()


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _UNREADABLE


def _squeezed(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


def redraws(rules: Policy) -> bool:
    """Whether a retry whose every reply repeats code that already failed in the run draws once
    more (at the next retry's temperature) instead of testing it again: a run under a policy
    that stops on a repeat (stop_on_repeat; always in the project form) stops instead. On
    HumanEval under the default, 13 of local-1.5b's 55 retries repeated failed code
    (benchmarks/results/humaneval-1.5b-default)."""
    return not rules.stop_on_repeat


def is_repair(attempt: Attempt) -> bool:
    """Whether an attempt was written shown a failure: a retry that was not a fresh sample."""
    return attempt["attempt"] > 1 and not attempt.get("fresh_start")


def writes_fresh(state: State, rules: Policy, shows: Callable[[FailureKind], bool] | None = None) -> bool:
    """Whether the next retry is written from the first attempt's prompt (a fresh sample: no
    failure, no reflections) rather than shown the last failure: feedback off, the first
    Policy.fresh_attempts retries, a failure that is not `informative` when the policy
    shows only those, a failure routed by kind to a fresh sample (shows_by_kind; `shows`
    chooses per kind), or a run stuck on the same failure (needs_fresh_start); never after
    fresh samples that found nothing new (shows_after_repeat). `rules`: the run's policy as
    its form adjusts it (Form.policy_for)."""
    feedback = state.feedback
    if shows_after_repeat(state, rules):
        return False
    return (
        not rules.feedback
        or state.attempts <= rules.fresh_attempts
        or (rules.feedback_when == "informative" and not (feedback and informative(feedback)))
        or (rules.feedback_when == "by_kind" and not shows_by_kind(state, shows))
        or needs_fresh_start(state, rules)
    )


def hedges(state: State, rules: Policy, shows: Callable[[FailureKind], bool] | None = None) -> bool:
    """Whether the next retry, a fresh sample (writes_fresh), writes one of its samples shown the
    failure (Policy.hedge): it is the first retry, it has at least two samples, and it is fresh
    only because of Policy.fresh_attempts (the policy would show this failure otherwise)."""
    return (
        rules.hedge and rules.retry_samples > 1 and state.attempts == 1
        and not writes_fresh(state, dataclasses.replace(rules, fresh_attempts=0), shows)
    )


def shows_after_repeat(state: State, rules: Policy) -> bool:
    """Fresh samples found nothing new: every candidate of the latest attempt, written from the
    first prompt, repeated code already tried, under a policy that stops on a repeat. The next
    retry is shown the failure instead of the run ending stuck, when the policy shows failures
    at all (feedback on; under "informative", an informative one): what it says is the one
    thing the model has not seen. A repair that repeats still ends the run (is_stuck)."""
    history, feedback = state.history, state.feedback
    if not (rules.stop_on_repeat and rules.feedback and feedback and history and history[-1].get("repeat")):
        return False
    return not is_repair(history[-1]) and (rules.feedback_when != "informative" or informative(feedback))


def shows_by_kind(state: State, shows: Callable[[FailureKind], bool] | None = None) -> bool:
    """Routing by kind (Policy.feedback_when "by_kind"): the next retry is shown the last
    failure when `shows` says so for its kind (the actor's learned choice, codeheal.learning;
    by default: the kind is in SHOWN_KINDS), unless the last attempt was itself a repair (a
    repair of a repair is not made: after a shown failure fails again, the next is fresh)."""
    feedback, history = state.feedback, state.history
    if not feedback or (history and is_repair(history[-1])):
        return False
    return (shows or SHOWN_KINDS.__contains__)(failure_kind(feedback))


def needs_fresh_start(state: State, rules: Policy) -> bool:
    """Two attempts in a row of the same model failed the same way: the next attempt starts
    over from the first attempt's prompt (when the policy, as the run's form adjusts it,
    allows fresh starts)."""
    history = _turn(state.history)
    return _fresh_starts_on(rules) and _repeats_previous(history) and not history[-1].get("fresh_start", False)


def is_stuck(state: State, rules: Policy) -> bool:
    """The latest model's turn (all the run, without a model ladder) is stuck: a fresh start
    after two equal failures failed the same way as they did. With stop_on_repeat (always in
    a form that cannot sample fresh, Form.policy_for), also when an attempt's candidates were
    all tried before: sampling again found nothing new, and no failure is left to show
    (shows_after_repeat)."""
    history = _turn(state.history)
    if rules.stop_on_repeat and history and history[-1].get("repeat") and not shows_after_repeat(state, rules):
        return True
    return _fresh_starts_on(rules) and _restart_repeated(history)


def _turn(history: list[Attempt]) -> list[Attempt]:
    """The attempts of the latest model's turn: those after the last attempt another model
    wrote (attempts no model wrote, the given code or the screen, belong to the turn they are in)."""
    models = [attempt.get("model") for attempt in history]
    latest = next((model for model in reversed(models) if model), None)
    return history[max((i + 1 for i, model in enumerate(models) if model and model != latest), default=0):]


@dataclass(frozen=True)
class Turn:
    """Which model of the ladder (Context.model, then Context.then_models) writes the next
    attempt, and the reflection before it."""

    model: str
    """Its name: the one its attempts record, and learning.py counts what pays for."""
    handover: Literal["stuck", "turn used"] | None
    """Set when the next attempt is its first, after the model before it was stuck or wrote its
    share of the attempts: the handover is shown the last failure and the reflections."""
    previous: str | None
    """With a handover: the model that handed over."""


def ladder(context: Context) -> tuple[str, ...]:
    """The models a run climbs, in order: Context.model, then each of Context.then_models."""
    return (context.model, *context.then_models)


def shares(context: Context) -> tuple[int, ...]:
    """How many attempts each model of the ladder writes before the next takes over:
    max_attempts shared out, the earlier models one more each while a remainder is left. (The
    last model writes every attempt left: those a model stuck early did not use, and those a
    reviewer grants.)"""
    share, left = divmod(context.max_attempts, len(ladder(context)))
    return tuple(share + (i < left) for i in range(len(ladder(context))))


def turn(state: State, context: Context, rules: Policy) -> Turn:
    """Which model writes the next attempt: the one that wrote the latest attempt (the first
    before any did), or the next on the ladder once it has written its share (`shares`) or
    is stuck on its turn (is_stuck; `rules`: the run's policy as its form adjusts it)."""
    entries = ladder(context)
    names = [model_name(entry) for entry in entries]
    written = [attempt["model"] for attempt in state.history if attempt.get("model")]
    index = names.index(written[-1]) if written and written[-1] in names else 0
    handover: Literal["stuck", "turn used"] | None = None
    if written and index + 1 < len(entries):
        if written.count(names[index]) >= shares(context)[index]:
            index, handover = index + 1, "turn used"
        elif is_stuck(state, rules):
            index, handover = index + 1, "stuck"
    return Turn(model=names[index], handover=handover, previous=names[index - 1] if handover else None)


def model_context(context: Context, model: str | None) -> Context:
    """The Context a model of the ladder is called with: the run's, with that model and its
    endpoint (NAME@URL, else the run's base_url); the run's own for its first model, and for
    a model the ladder does not name."""
    entry = next((e for e in context.then_models if model_name(e) == model), None)
    if entry is None:
        return context
    url = entry.partition("@")[2]
    return dataclasses.replace(context, model=model_name(entry), base_url=url or context.base_url, then_models=())


def _fresh_starts_on(rules: Policy) -> bool:
    # Routed by kind, no repair is repaired again: a fresh sample follows every failed repair
    # already, and fresh samples that fail alike are no stuck conversation.
    return rules.fresh_start and rules.feedback and rules.feedback_when != "by_kind"


def _restart_repeated(history: list[Attempt]) -> bool:
    """The latest attempt is a fresh start made because the two before it failed alike (a
    fresh sample of a policy that samples first is not), and it failed as they did."""
    return (len(history) >= 3 and bool(history[-1].get("fresh_start")) and not history[-2].get("fresh_start")
            and _repeats_previous(history) and _repeats_previous(history[:-1]))


def _repeats_previous(history: list[Attempt]) -> bool:
    """The latest attempt failed exactly as the one before it."""
    return len(history) >= 2 and history[-1]["summary"] == history[-2]["summary"]


def after_evaluation(state: State, context: Context, rules: Policy, *, screens: bool = False) -> AfterEvaluation:
    """Passed: finish, or first choose by generated inputs when the tests are weak. Attempts
    used up: finish (or human review when the Context asks for it). Stuck: the next model of
    the ladder takes over (`turn`: it is shown the failure), else finish. Two equal failures
    in a row: a fresh start. Otherwise try again, through the reflector when the
    policy (`rules`, as the run's form adjusts it) reflects and the next attempt is shown the
    failure (see writes_fresh), unless it `screens` candidates written without a model
    (`screen` in state): no reflection first."""
    feedback = state.feedback
    if feedback and feedback["passed"]:
        return "selector" if wants_selection(state, context) else "finish"
    if state.attempts >= attempt_limit(state, context):
        return "review" if context.review_on_exhaustion else "finish"
    handover = turn(state, context, rules).handover is not None
    if is_stuck(state, rules) and not handover:
        return "finish"
    if screens or (not handover and writes_fresh(state, rules)):
        return "actor"  # neither a screen nor a fresh sample reads a reflection
    return "reflector" if reflects(rules) else "actor"


def reflects(rules: Policy) -> bool:
    """Whether a retry shown the failure is preceded by a reflection: Policy.reflect, with feedback
    on (always in the project form: a project has one starting point, so every retry there
    sees the failure, Form.policy_for), unless the policy routes by kind: a failure shown for
    its kind is shown raw (HumanEval: raw_error healed more than self_heal, for fewer tokens)."""
    return rules.reflect and rules.feedback and rules.feedback_when != "by_kind"


def wants_selection(state: State, context: Context) -> bool:
    """The latest attempt passed the user's tests (module form: prepare sets `probe_function`),
    more samples are to be drawn to choose by execution (ModuleSettings.select_samples), an
    attempt is left, and this run has not chosen yet (see nodes/selection.py)."""
    return bool(
        context.module.select_samples
        and state.probe_function
        and state.attempts < attempt_limit(state, context)
        and not any(attempt.get("selection") for attempt in state.history)
    )


def after_model_step(state: State) -> Literal["go on", "finish"]:
    """A node that could not afford its model call within the budget, or found the run's time
    out (`out_of_time`, a model call cut at the deadline, a batch of candidates not sent), ends
    the run."""
    return "finish" if state.stop_reason is not None else "go on"


def final_status(state: State, rules: Policy) -> Status:
    """How the run ended: passed when the last evaluation passed, "accepted" when a reviewer
    accepted the best attempt, "budget" when the token budget ran out, "deadline" when the
    run's time did (State.stop_reason), "stuck" when a fresh start failed like the attempts
    before it (see is_stuck), failed otherwise."""
    feedback = state.feedback
    if feedback and feedback["passed"]:
        return "passed"
    if state.status == "accepted":
        return "accepted"
    if state.stop_reason is not None:
        return state.stop_reason
    return "stuck" if is_stuck(state, rules) else "failed"


LINE_SLOTS = 6
"""Project form: suspicious lines that get line-level candidates on each repair attempt (the
first attempt the top ones, the next attempt the next ones)."""
LINE_SAMPLES = 2
"""Project form: one-line replacements drawn for each of those lines (the first greedy)."""
REWRITE_SAMPLES = 2
"""Project form: whole-function rewrites a later repair attempt draws at least (the first is
greedy, one; Form.policy_for raises Policy.retry_samples to it); with one, a retry that
repeats itself ends the run as stuck."""


MUTATED_LINES = 10
"""Project form: the suspicious lines whose one-line mutations are screened (project/mutations.py)."""


@dataclass(frozen=True)
class RepairPlan:
    """How one project-form repair attempt divides its model calls between line-level
    candidates and whole-function rewrites (with the feedback so far)."""

    rewrites: int
    lines: range
    """Which of the ranked line slots get line candidates (indexes into the ranking's slots)."""
    line_samples: int


def repair_plan(state: State, rules: Policy) -> RepairPlan:
    """The project form's next repair attempt: the first draws one greedy rewrite and line
    candidates for the LINE_SLOTS most suspicious lines; each later one draws
    Policy.retry_samples rewrites (at least REWRITE_SAMPLES in the project form's policy) and
    line candidates for the next LINE_SLOTS lines."""
    written = state.written
    rewrites = 1 if not written else rules.retry_samples
    return RepairPlan(rewrites=rewrites, lines=range(written * LINE_SLOTS, (written + 1) * LINE_SLOTS),
                      line_samples=LINE_SAMPLES)
