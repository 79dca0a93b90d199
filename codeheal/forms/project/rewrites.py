"""How the model's whole-function rewrites have ended so far in a run, and what the next attempt
draws of them: calls that earn their tokens.

A rewrite that is not valid Python is retried once, by the next attempt, with its parse error
shown and a smaller scope (one sample, the one function the repair most likely changes); when
that retry does not parse either, the run draws no more rewrites. Rewrites that change nothing
twice (the project's own definitions sent back) end the rewrites too. Line candidates go on
either way; a run with no line slot left still draws its rewrites (its stop on a repeat ends it)."""

from __future__ import annotations

from collections.abc import Sequence

from typing_extensions import TypedDict  # pydantic (Studio's schemas) needs it on Python < 3.12

from codeheal.forms.project.edits import CHANGES_NOTHING, NOT_PYTHON
from codeheal.state import AppliedChange

UNCHANGED_ENDS = 2
"""Rewrites that changed nothing, in a run, after which it draws no more."""
UNPARSED_ENDS = 2
"""Attempts in a row whose rewrites did not parse, after which the run draws no more."""


class RewriteTrail(TypedDict):
    """How the run's rewrites ended so far (ProjectRun.rewrites)."""

    unparsed: int
    """Attempts in a row, up to the latest, with a rewrite that is not valid Python."""
    parse_error: str
    """The latest such rewrite's refusal ("" when the latest attempt had none)."""
    unchanged: int
    """Rewrites in this run that changed nothing."""


NO_TRAIL = RewriteTrail(unparsed=0, parse_error="", unchanged=0)


def followed(trail: RewriteTrail, changes: Sequence[AppliedChange]) -> RewriteTrail:
    """`trail` after an attempt whose rewrites, applied, are `changes` (in draw order)."""
    refusals = [change["refused"] or "" for change in changes]
    unparsed = next((r for r in refusals if NOT_PYTHON in r), "")
    return RewriteTrail(
        unparsed=trail["unparsed"] + 1 if unparsed else 0,
        parse_error=unparsed,
        unchanged=trail["unchanged"] + sum(CHANGES_NOTHING in r for r in refusals),
    )


def ended(trail: RewriteTrail) -> bool:
    """Whether the run's rewrites ended: a retried reply did not parse either, or rewrites
    changed nothing twice. The trail then stays as it is."""
    return trail["unparsed"] >= UNPARSED_ENDS or trail["unchanged"] >= UNCHANGED_ENDS


def rewrites_to_draw(trail: RewriteTrail, planned: int, *, lines_left: bool) -> int:
    """How many rewrites the next attempt draws of the `planned` (rules.repair_plan): none once
    the rewrites ended (while line candidates are left to draw), one when it retries a reply
    that did not parse."""
    if ended(trail) and lines_left:
        return 0
    return min(planned, 1) if trail["unparsed"] else planned


def retry_note(trail: RewriteTrail, function: str | None) -> str | None:
    """What the retry of a reply that did not parse is told: the parse error, and the smaller
    scope (one function, whole); None when the latest attempt's rewrites parsed."""
    if not trail["unparsed"] or trail["unparsed"] >= UNPARSED_ENDS:
        return None
    scope = f"the function {function}" if function else "one function"
    return (f"Your previous reply was not Python that parses ({trail['parse_error']}). Send only {scope}, "
            "whole, from its def line, each line of its body indented under it.")
