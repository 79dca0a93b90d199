"""Per-test time limits learned from the run of the project as it is: each test's seconds there
(the report plugin's "duration" evidence, evaluation/clock.py) become a limit of its own in every
candidate's run (rules.per_test_limit), so a candidate that hangs in a test that took
milliseconds is stopped in about a second, not at its run's limit; and a test the project as it
is hung in is said to have hung, in the progress and in every repair prompt."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping

from codeheal.evaluation.verdict import parse_report
from codeheal.rules import per_test_limit
from codeheal.sandboxes.base import RunResult
from codeheal.state import CheckFailure, Feedback

LIMITS_FILE = "codeheal_limits.json"
"""Where a candidate's run finds its tests' limits, beside the report plugin (clock.py reads it)."""
HUNG = "Timeout"
"""The exception of the failure that names the test a timed-out run was still running."""


def durations_of(result: RunResult) -> dict[str, float]:
    """The seconds of each test function's body in a run (its fixtures not counted), by node
    id: the tests that finished (a run stopped at its limit has none for the test it hung in)."""
    return {e["test"]: e["seconds"] for e in parse_report(result.report).events if e.get("event") == "duration"}


def learned_limits(durations: Mapping[str, float], passed: Collection[str], failed: Collection[str]) -> dict[str, float]:
    """The time limit of each test in a candidate's run, by node id, from its seconds on the
    project as it is: a test that passed there gets rules.per_test_limit of its own time. A
    test that failed there took a wrong path (an assert that failed early, an exception), so its
    time does not say how long it runs once repaired: it gets the limit of the slowest test of
    the same function that passed (another of its parameters), at least its own; none when no
    such test passed. A test that hung or did not run gets none: the run's limit bounds it."""
    slowest: dict[str, float] = {}
    for test in passed:
        if test in durations:
            slowest[_function(test)] = max(slowest.get(_function(test), 0.0), durations[test])
    limits = {test: per_test_limit(durations[test]) for test in passed if test in durations}
    for test in failed:
        if test in durations and _function(test) in slowest:
            limits[test] = per_test_limit(max(durations[test], slowest[_function(test)]))
    return limits


def limits_files(limits: Mapping[str, float]) -> dict[str, str]:
    """The file that gives a candidate's run its tests' limits (none when there are none)."""
    return {LIMITS_FILE: json.dumps(dict(limits), sort_keys=True)} if limits else {}


def hung_as_is(feedback: Feedback, limit: float) -> Feedback:
    """The feedback of a run of the project as it is that ran into its limit, saying that the
    project hangs: its error and the failure of the test it was still running name the hang and
    the limit (the progress shows the error, every repair prompt the failure)."""
    hung = next((f for f in feedback["failures"] if f["exception"] == HUNG), None)
    where = f"{hung['test']} hung" if hung else "the tests hung"
    said = f"still running when the run's limit of {limit:g} s ran out"
    said_so = feedback.copy()
    said_so["failures"] = [CheckFailure(**{**f, "message": f"hung on the project as it is: {said}"}) if f is hung
                           else f for f in feedback["failures"]]
    said_so["error"] = f"timed out on the project as it is: {where} ({said})"
    return said_so


def _function(test: str) -> str:
    """A test's node id without its parameters: the test function its cases share."""
    return test.split("[", 1)[0]
