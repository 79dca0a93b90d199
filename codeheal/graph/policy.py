"""Loop policy: which attempt is best, how many attempts a run may use, where the loop goes
after an evaluation, and how a run ends. Nodes do their one job; these rules decide the run."""

from __future__ import annotations

from typing import Literal

from codeheal.context import Context
from codeheal.state import Attempt, State, Status

AfterEvaluation = Literal["reflector", "actor", "review", "finish"]


def attempt_limit(state: State, context: Context) -> int:
    """How many attempts this run may use: the Context's cap unless a reviewer granted more."""
    return state.get("attempt_limit") or context.max_attempts


def best_attempt(history: list[Attempt]) -> Attempt:
    """The attempt that passed the most checks; the latest one among equals, code
    before no code."""
    return max(reversed(history), key=lambda a: (a["passed_count"], bool(a["code"].strip())))


def after_evaluation(state: State, context: Context) -> AfterEvaluation:
    """Passed: finish. Attempts used up: finish, or human review when the Context asks for
    it. Otherwise try again, through the reflector when the Context reflects."""
    feedback = state.get("feedback")
    if feedback and feedback["passed"]:
        return "finish"
    if (state.get("attempts") or 0) >= attempt_limit(state, context):
        return "review" if context.review_on_exhaustion else "finish"
    return "reflector" if context.reflect else "actor"


def final_status(state: State) -> Status:
    """How the run ended: passed when the last evaluation passed, "accepted" when a
    reviewer accepted the best attempt, failed otherwise."""
    feedback = state.get("feedback")
    if feedback and feedback["passed"]:
        return "passed"
    return "accepted" if state.get("status") == "accepted" else "failed"
