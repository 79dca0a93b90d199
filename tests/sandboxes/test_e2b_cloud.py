"""Opt-in smoke test against the real E2B cloud: runs only when E2B_API_KEY is set (costs
a few cents' worth of sandbox seconds)."""

from __future__ import annotations

import os

import pytest

from codeheal.evaluation.jobs import make_job
from codeheal.forms.module.candidate import _from_run
from codeheal.sandboxes.e2b import E2BSandbox

pytestmark = pytest.mark.skipif(not os.environ.get("E2B_API_KEY"), reason="E2B_API_KEY is not set")


def test_real_e2b_runs_a_session_and_reports_feedback():
    sandbox = E2BSandbox(lifetime_s=120)
    tests = "assert add(2, 3) == 5\nassert add(0, 0) == 0\n"
    try:
        bad = sandbox.run(make_job("def add(a, b):\n    return a - b\n", tests, 60, session="cloud"))
        good = sandbox.run(make_job("def add(a, b):\n    return a + b\n", tests, 60, session="cloud"))
    finally:
        sandbox.close_session("cloud")
    bad_feedback = _from_run(bad, tests)
    good_feedback = _from_run(good, tests)
    assert (bad_feedback["passed_count"], bad_feedback["total"]) == (1, 2)
    assert good_feedback["passed"] and good_feedback["isolation"] == "e2b"
