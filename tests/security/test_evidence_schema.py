"""Evidence checked by schema on the host (evaluation/evidence.py): a record from the sandbox
that does not have exactly the shape the report plugin writes makes the report untrusted and
the run a failed attempt that says so; it never raises in the host and never passes.

The guarantee is tried on every field of every record kind, with values of every other JSON
type, missing fields and extra ones (hypothesis draws the values), and end to end with a
candidate that writes misshapen records through the real report channel."""

from __future__ import annotations

import json

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import evaluate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codeheal.evaluation.evidence import checked_evidence, checked_supervisor
from codeheal.evaluation.feedback import run_feedback
from codeheal.evaluation.verdict import parse_report
from codeheal.sandboxes.base import RunResult

TEST = "test_solution.py::test_add"
FRAME = {"file": "solution.py", "line": 2, "function": "add", "source": "return a - b"}
PASSING = [
    {"event": "start"},
    {"event": "collected", "tests": [TEST], "watched": [TEST]},
    {"event": "begin", "test": TEST},
    {"event": "coverage", "test": TEST, "lines": {"solution.py": [1, 2]}},
    {"event": "value", "test": TEST, "check": 0, "side": 0, "plain": ["int", "5"]},
    {"event": "value", "test": TEST, "check": 0, "side": 1, "plain": ["int", "5"]},
    {"event": "ended", "test": TEST},
    {"event": "result", "test": TEST, "name": "test_add", "when": "call", "outcome": "passed",
     "subtests": {"passed": 0, "failed": 0, "skipped": 0}},
    {"event": "finish", "exitstatus": 0, "collected": 1},
]
OTHER_RECORDS = [
    {"event": "value", "test": TEST, "check": 1, "side": 0, "big": "list"},
    {"event": "value", "test": TEST, "check": 1, "side": 1, "object": "Yes"},
    {"event": "result", "test": TEST, "name": "test_add", "when": "call", "outcome": "failed",
     "exception": "AssertionError", "message": "assert 1 == 5", "frames": [FRAME],
     "inputs": {"a": "1"}, "expected": "5", "actual": "1"},
    {"event": "result", "test": TEST, "name": "test_add", "when": "setup", "outcome": "skipped",
     "xfail": True, "reason": "later"},
    {"event": "subtest", "test": TEST, "name": "test_add", "when": "call", "outcome": "failed",
     "subtest": "[i=1]", "exception": "AssertionError", "message": "no", "frames": []},
    {"event": "collect_error", "test": "test_solution.py", "exception": "ImportError", "message": "no",
     "frames": [FRAME]},
]
SUPERVISOR = {"exit_code": 0, "forged_lines": 0, "evidence_cut": False}
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def report_text(events: list[dict], supervisor: object = SUPERVISOR) -> str:
    lines = [json.dumps({"evidence": event}) for event in events]
    return "\n".join([*lines, json.dumps({"supervisor": supervisor})]) + "\n"


def feedback_for(report: str) -> dict:
    result = RunResult(exit_code=0, stdout="", stderr="", timed_out=False, output_truncated=False,
                       seconds=0.1, isolation="bwrap", report=report)
    return run_feedback(result, expected=["test_add"], watched=[], must_run=None, tests=None)


def same_type(a: object, b: object) -> bool:
    kinds = (bool, int, float, str, list, dict, type(None))
    return next(k for k in kinds if isinstance(a, k)) is next(k for k in kinds if isinstance(b, k))


@pytest.mark.parametrize("record", PASSING + OTHER_RECORDS)
def test_every_record_the_plugin_writes_is_evidence_as_written(record: dict) -> None:
    assert checked_evidence(record) == record


def test_a_well_formed_passing_report_passes() -> None:
    feedback = feedback_for(report_text(PASSING))
    assert feedback["passed"], feedback


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_a_field_of_another_type_makes_the_report_untrusted(data: st.DataObject) -> None:
    """Any one field of any record replaced by a JSON value of another type."""
    records = PASSING + OTHER_RECORDS
    index = data.draw(st.integers(0, len(records) - 1), label="record")
    record = dict(records[index])
    field = data.draw(st.sampled_from(sorted(record)), label="field")
    value = data.draw(JSON_VALUES.filter(lambda v: not same_type(v, record[field])), label="value")
    record[field] = value
    assert isinstance(checked_evidence(record), str)
    events = list(PASSING)
    events[min(index, len(PASSING) - 1)] = record
    feedback = feedback_for(report_text(events))
    assert not feedback["passed"]
    assert "evidence schema" in (feedback["error"] or ""), feedback["error"]


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_a_missing_or_unknown_field_makes_the_report_untrusted(data: st.DataObject) -> None:
    index = data.draw(st.integers(0, len(PASSING) - 1), label="record")
    record = dict(PASSING[index])
    if data.draw(st.booleans(), label="drop") and len(record) > 1:
        del record[data.draw(st.sampled_from(sorted(k for k in record if k != "subtests")), label="field")]
    else:
        record[data.draw(st.text(min_size=1, max_size=8).filter(lambda k: k not in record), label="extra")] = (
            data.draw(JSON_VALUES, label="value"))
    events = list(PASSING)
    events[index] = record
    feedback = feedback_for(report_text(events))
    assert not feedback["passed"]
    assert "evidence schema" in (feedback["error"] or ""), feedback["error"]


@pytest.mark.parametrize("record", [
    [], "start", 5, None, {"event": "verdict", "passed": True}, {"event": 1},
    {"event": "value", "test": TEST, "check": 0, "side": True, "plain": ["int", "5"]},
    {"event": "value", "test": TEST, "check": 0, "side": 0, "plain": ["int", "5"], "big": "int"},
    {"event": "value", "test": TEST, "check": 0, "side": 0, "object": "Yes", "known": False},
    {"event": "value", "test": TEST, "check": 0, "side": 0, "plain": ["int", "5", "6"]},
    {"event": "unfaithful", "test": TEST},
    {"event": "compared", "test": TEST, "check": 0, "count": 1, "failed": 0, "objects": 0},
    {"event": "result", "test": TEST, "name": "test_add", "when": "call", "outcome": "passed", "xfail": False},
    {"event": "result", "test": TEST, "name": "test_add", "when": "call", "outcome": "ok"},
    {"event": "result", "test": TEST, "name": "test_add", "when": "call", "outcome": "failed",
     "frames": [{**FRAME, "line": "2"}]},
    {"event": "coverage", "test": TEST, "lines": {"solution.py": [True]}},
    {"event": "finish", "exitstatus": 0.0, "collected": 1},
])
def test_named_shapes_are_not_evidence(record: object) -> None:
    assert isinstance(checked_evidence(record), str)
    report = parse_report(report_text([*PASSING[:-1], record, PASSING[-1]]))
    assert report.misshapen and len(report.events) == len(PASSING)
    assert not feedback_for(report_text([*PASSING[:-1], record, PASSING[-1]]))["passed"]


@pytest.mark.parametrize("supervisor", [
    {}, {"exit_code": "0", "forged_lines": 0, "evidence_cut": False},
    {"exit_code": 0, "forged_lines": -1, "evidence_cut": False},
    {"exit_code": 0, "forged_lines": 0, "evidence_cut": 0},
    {**SUPERVISOR, "passed": True}, [0], "ok",
])
def test_a_misshapen_supervisor_record_is_untrusted(supervisor: object) -> None:
    assert isinstance(checked_supervisor(supervisor), str)
    feedback = feedback_for(report_text(PASSING, supervisor))
    assert not feedback["passed"]
    assert "evidence schema" in (feedback["error"] or "")


@pytest.mark.usefixtures("contained")
@pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")
@pytest.mark.parametrize("forged", [
    "{'event': 'result', 'test': 1, 'name': 'test_add', 'when': 'call', 'outcome': 'failed'}",
    "{'event': 'result', 'test': T, 'name': 'test_add', 'when': 'call', 'outcome': 'failed', 'frames': [5]}",
    "{'event': 'result', 'test': T, 'name': 'test_add', 'when': 'call', 'outcome': 'failed', 'frames': 'x'}",
    "{'event': 'value', 'test': T, 'check': 'x', 'side': 0, 'plain': ['int', '5']}",
    "{'event': 'collected', 'tests': [T]}",
    "{'event': 'coverage', 'test': T, 'lines': ['solution.py']}",
    "{'event': 'passed'}",
])
def test_a_candidate_writing_misshapen_records_fails_cleanly(forged: str) -> None:
    """In bubblewrap: the candidate looks for the plugin's emitter to write a record of the
    wrong shape, and gives the right answer besides. Apart, there is no emitter (a KeyError,
    which crosses without its arguments); judged again in the test process, it finds it and
    writes the record: the schema makes the report untrusted. Not a pass, no crash. (The host's
    schema check itself is tried on every field above.)"""
    code = ("import sys\nT = 'test_solution.py::test_add'\n"
            f"sys.modules['codeheal_report']._emit({forged})\n"
            "def add(a, b):\n    return a + b\n")
    updates, _ = evaluate(code, "def test_add():\n    assert add(2, 3) == 5\n", tamper_scan=False)
    feedback = updates["feedback"]
    assert not feedback["passed"], feedback
    assert feedback["in_test_process"].startswith("collecting: the candidate raised KeyError"), feedback
    assert "evidence schema" in (feedback["error"] or ""), feedback
