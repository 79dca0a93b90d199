"""The screen answers within its time: its mutants run only the tests that failed on the project
as it is (a slow passing test beside them is not run again), it stops once its time (from the
project's own test time and the run's time left) is up, with the best it found, and the model's
attempts go on; progress says what it tries and how long it may take."""

from __future__ import annotations

import re
import time
import types
from pathlib import Path

import pytest
from doubles import CountingSandbox, SlowClockSandbox
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from codeheal import build_graph, rules
from codeheal.context import Context, resolve
from codeheal.nodes.candidate_test import FIRST_BATCH

TEST = "python -m pytest -q"
SUMS = "def total(items):\n    result = 0\n    for item in items:\n        result = item\n    return result\n"
"""No one-token change heals `result = item` (it wants `+=`): the screen tests every mutant."""
SLOW_S = 3.0
TESTS = ("import time\n\nfrom sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n\n\n"
         f"def test_slow_but_passing():\n    time.sleep({SLOW_S})\n    assert total([]) == 0\n")
NO_CODE = "the model writes no code here"


def _project(tmp_path: Path) -> dict:
    (tmp_path / "sums.py").write_text(SUMS)
    (tmp_path / "test_sums.py").write_text(TESTS)
    return {"project": str(tmp_path), "test_command": TEST}


def _run(graph, request: dict, settings: dict) -> tuple[list[dict], dict]:
    events, result = [], {}
    for mode, chunk in graph.stream(request, context=resolve(settings).context, stream_mode=["custom", "values"]):
        (events.append if mode == "custom" else result.update)(chunk)
    return events, result


def test_the_screens_mutants_run_only_the_failing_tests_not_the_slow_one_beside_them(tmp_path: Path) -> None:
    sandbox = CountingSandbox()
    model = GenericFakeChatModel(messages=iter([NO_CODE] * 10))
    events, result = _run(build_graph(llm=model, sandbox=sandbox).compile(), _project(tmp_path),
                          {"max_attempts": 2, "mutants": 6, "reflect": False})
    screen = result["history"][1]
    assert screen["tokens"] == 0 and screen["candidates_tested"] == 6
    as_is_runs = 2  # the project as it is, and once more (a failure that does not come back is flaky)
    mutant_jobs = sandbox.jobs[as_is_runs:]
    assert 4 <= len(mutant_jobs) <= 6  # a mutant the linter refuses runs no test
    for job in mutant_jobs:
        assert job.python_args[-1] == "test_sums.py::test_total"  # the failing test alone
        assert not any("slow" in word for word in job.python_args)
    # none of them slept: each ran well under the slow test's time
    assert all(r.seconds < SLOW_S for r in sandbox.results[as_is_runs:])
    [written] = [e for e in events if e["kind"] == "candidates_written" and e.get("mutants")]
    assert written["screen"] == "one-line mutations of the suspicious lines"
    # its time: SCREEN_RUNS runs of the project as it is (which slept SLOW_S)
    assert rules.SCREEN_RUNS * SLOW_S <= written["screen_seconds"] <= rules.SCREEN_SHARE * Context().deadline_s


STEP_S = 200.0
"""The seconds each test run takes on the test's clock."""


def test_the_screen_stops_when_its_time_is_up_and_the_model_goes_on(tmp_path: Path, monkeypatch) -> None:
    clock = [1_000_000.0]
    monkeypatch.setattr(rules, "time", types.SimpleNamespace(time=lambda: clock[0]))
    (tmp_path / "sums.py").write_text(SUMS)
    (tmp_path / "test_sums.py").write_text("from sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n")
    sandbox = SlowClockSandbox(clock, STEP_S)
    model = GenericFakeChatModel(messages=iter([NO_CODE] * 10))
    deadline = 10_000.0  # the run's time is far from out: the screen's own ends it
    events, result = _run(build_graph(llm=model, sandbox=sandbox).compile(),
                          {"project": str(tmp_path), "test_command": TEST},
                          {"max_attempts": 2, "mutants": 20, "reflect": False, "deadline_s": deadline})
    [written] = [e for e in events if e["kind"] == "candidates_written" and e.get("mutants")]
    as_is_runs = 2
    left = deadline - STEP_S * as_is_runs
    assert written["screen_seconds"] == min(rules.SCREEN_BUDGET_MIN_S, rules.SCREEN_SHARE * left) < STEP_S
    screen = result["history"][1]
    # one batch (its runs take STEP_S each) spends the screen's time: the rest is not sent
    assert screen["candidates_tested"] == FIRST_BATCH
    [tested] = [e for e in events if e["kind"] == "tests_result" and e["attempt"] == 2]
    assert tested["untested"] == written["mutants"] - FIRST_BATCH
    # the run goes on to the model's attempt: the screen's time is not the run's
    assert result["attempts"] == 3 and result["status"] == "failed"
    assert result["history"][2]["summary"].startswith("failed") and result["history"][2]["tokens"] >= 0


@pytest.mark.parametrize(("as_is", "left", "budget"), [
    (0.5, 600.0, rules.SCREEN_BUDGET_MIN_S),  # fast tests: the least screen time
    (10.0, 600.0, rules.SCREEN_RUNS * 10.0),  # the project's own time, in runs
    (114.0, 600.0, 300.0),  # a slow suite: at most half the time left, the rest is the model's
    (None, 600.0, 300.0),  # the project as it is hung: how long a mutant runs is not known
    (2.0, None, None),  # no deadline: no bound
])
def test_the_screens_time_comes_from_the_projects_test_time_and_the_runs_time_left(as_is, left, budget) -> None:
    assert rules.screen_budget(as_is, left) == budget


def test_the_time_a_screened_candidate_may_take_is_the_screens_left_when_less() -> None:
    from codeheal.state import ScreenPlan, State

    now = time.time()
    plan = ScreenPlan(tries="one-line mutations of the suspicious lines", seconds=60.0, ends_with_left=240.0)
    screening = State(deadline=now + 300.0, screen_plan=plan, screened=True)
    assert rules.job_seconds_left(screening) == pytest.approx(60.0, abs=1.0)
    assert rules.job_seconds_left(State(deadline=now + 300.0, screen_plan=plan, screened=True, written=1)) == (
        pytest.approx(300.0, abs=1.0))  # the model's candidates: the run's time
    assert not rules.screen_time_up(screening)
    assert rules.screen_time_up(State(deadline=now + 239.0, screen_plan=plan, screened=True))


def test_progress_says_what_the_screen_tries_its_time_and_what_it_left_untested() -> None:
    import io

    from rich.console import Console

    from codeheal.runner import _Narrator

    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=300), Context(), reflects=False)
    narrator.on_event({"kind": "candidates_written", "attempt": 2, "seconds": 0.0, "prompt_tokens": 0,
                       "completion_tokens": 0, "mutants": 20, "screen": "one-line mutations of the suspicious lines",
                       "screen_seconds": 120.0})
    narrator.on_event({"kind": "tests_result", "attempt": 2, "passed": False, "passed_count": 0, "total": 1,
                       "summary": "failed 0/1 passed", "seconds": 130.0, "sandbox_seconds": 400.0, "isolation": "bwrap",
                       "time_limit_s": 4.0, "candidates": 4, "untested": 16})
    shown = out.getvalue()
    assert re.search(r": screen: 20 one-line mutations of the suspicious lines to test \(no model call, within 120 s "
                     r"of the \d+ s left\)", shown), shown
    assert "; 16 left untested (the screen's time was up);" in shown
