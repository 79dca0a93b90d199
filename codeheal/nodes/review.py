"""Human review when the attempts run out (opt-in: Context.review_on_exhaustion).

The run pauses with ``interrupt(ReviewRequest)`` and goes on when the caller resumes the
thread with ``Command(resume=ReviewDecision)``:

- ``{"action": "accept"}``: keep the best attempt; status "accepted".
- ``{"action": "abort"}``: stop; status "failed", the best attempt kept as ``code``.
- ``{"action": "retry", "hint": "...", "more_attempts": 2}``: the hint joins the reflection
  memory and the actor writes up to ``more_attempts`` (default 1) further attempts.

Pausing needs a checkpointer (Studio, the CLI and parent graphs with one have it).
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from langgraph.types import interrupt

from codeheal.errors import InputError
from codeheal.context import current_context
from codeheal.rules import best_attempt, deadline_from_now
from codeheal.progress import ReflectionWritten, emit
from codeheal.state import State

HINT_PREFIX = "Human reviewer: "


class ReviewRequest(TypedDict):
    """What the reviewer sees: the best attempt, how it failed, and what was learnt."""

    kind: Literal["review"]
    task: str
    code: str
    attempt: int
    attempts: int
    passed_count: int
    total: int
    summary: str
    reflections: list[str]
    resume_with: str


class ReviewDecision(TypedDict):
    action: Literal["accept", "abort", "retry"]
    hint: NotRequired[str]
    more_attempts: NotRequired[int]


RESUME_HELP = (
    'Command(resume={"action": "accept"}), Command(resume={"action": "abort"}) or '
    'Command(resume={"action": "retry", "hint": "what to change", "more_attempts": 1})'
)


def review(state: State) -> dict:
    """Pause for a human decision on the best attempt: retry (back to the actor), or
    accept / abort (the run finishes)."""
    history = state.history
    best = best_attempt(history)
    decision = parse_decision(interrupt(ReviewRequest(
        kind="review",
        task=state.task,
        code=best["code"],
        attempt=best["attempt"],
        attempts=state.attempts,
        passed_count=best["passed_count"],
        total=best["total"],
        summary=best["summary"],
        reflections=state.reflections,
        resume_with=RESUME_HELP,
    )))
    attempts = state.attempts
    if decision["action"] == "retry":
        reflection = HINT_PREFIX + decision["hint"]
        *earlier, last = history
        emit(ReflectionWritten(kind="reflection_written", attempt=last["attempt"], reflection=reflection))
        return {
            "status": "running",
            "attempt_limit": attempts + decision.get("more_attempts", 1),
            "deadline": deadline_from_now(current_context()),
            "reflections": [reflection],
            "history": [*earlier, {**last, "reflection": reflection}],
        }
    return {"status": "accepted" if decision["action"] == "accept" else "failed"}


def parse_decision(value: object) -> ReviewDecision:
    """The reviewer's resume value, checked; InputError says what a valid one looks like."""
    if not isinstance(value, dict) or value.get("action") not in ("accept", "abort", "retry"):
        raise InputError(f"review: cannot use the resume value {value!r}; resume with {RESUME_HELP}")
    if value["action"] == "retry":
        hint = value.get("hint")
        if not isinstance(hint, str) or not hint.strip():
            raise InputError('review: "retry" needs a non-empty "hint" telling the model what to change')
        more = value.get("more_attempts", 1)
        if not isinstance(more, int) or isinstance(more, bool) or more < 1:
            raise InputError(f'review: "more_attempts" must be an integer >= 1, got {more!r}')
        return ReviewDecision(action="retry", hint=hint.strip(), more_attempts=more)
    return ReviewDecision(action=value["action"])
