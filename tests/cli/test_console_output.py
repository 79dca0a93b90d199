"""Progress output prints model text literally: brackets in it are not rich markup."""

from __future__ import annotations

import io

from rich.console import Console

from codeheal.context import Context
from codeheal.runner import _Narrator

TRICKY = "use [x for x in items], not [/foo] or [bold]"


def test_reflections_and_summaries_with_brackets_are_printed_as_written() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context(), reflects=True)
    narrator.on_event({"kind": "reflection_written", "attempt": 1, "reflection": TRICKY})
    narrator.on_event({
        "kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 0, "total": 1,
        "summary": f"failed 0/1 passed; {TRICKY}", "seconds": 0.2, "sandbox_seconds": 0.1, "isolation": "bwrap",
    })
    printed = out.getvalue()
    assert f"reflection: {TRICKY}" in printed
    assert f"failed 0/1 passed; {TRICKY}" in printed


def test_an_attempt_of_several_candidates_says_its_time_is_summed_sandbox_time() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context(), reflects=True)
    base = {"kind": "tests_result", "passed": True, "passed_count": 3, "total": 3, "summary": "passed 3/3",
            "seconds": 9.0, "isolation": "bwrap"}
    narrator.on_event({**base, "attempt": 1, "sandbox_seconds": 0.5})
    narrator.on_event({**base, "attempt": 2, "sandbox_seconds": 41.25, "candidates": 13})
    printed = out.getvalue()
    assert "attempt 1: passed, 3 of 3 checks; tests ran 0.5 s (bwrap sandbox)" in printed
    assert "attempt 2: passed, 3 of 3 checks; the best of 13 candidates, whose tests ran 41.2 s in all (bwrap sandbox)" in printed


def test_counts_say_how_many_passed_and_failed_and_time_is_time_beside_the_limit() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context(), reflects=True)
    narrator.on_event({"kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 8, "total": 12,
                       "summary": "failed 8/12 passed", "seconds": 80.0, "sandbox_seconds": 72.36,
                       "isolation": "bwrap", "time_limit_s": 10.0})
    narrator.on_event({"kind": "tests_result", "attempt": 2, "passed": False, "passed_count": 0, "total": 0,
                       "summary": "failed 0/0 passed; the reply was not applied: no code", "seconds": 0.0,
                       "sandbox_seconds": 0.0, "isolation": "none"})
    printed = out.getvalue()
    assert "attempt 1: failed, 8 of 12 passed (4 failed); tests ran 72.4 s (bwrap sandbox, limit 10 s a run)" in printed
    assert "attempt 2: refused (no test ran)" in printed and "0/0 checks" not in printed


def test_solve_verbose_shows_each_attempts_code_as_a_diff_of_the_one_before(tmp_path, capsys) -> None:
    from scripted_openai import ADD_TASK, ADD_TESTS, LESSON, ScriptedServer

    from codeheal.cli import main

    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    with ScriptedServer() as server:
        code = main(["solve", ADD_TASK, "--tests", str(tests), "--model", "scripted", "--base-url", server.url,
                     "--checkpointer", str(tmp_path / "c.sqlite"), "-v"])
    out, err = capsys.readouterr()
    assert code == 0 and out.strip() == "def add(a, b):\n    return a + b"
    assert "prompt: system" in err and ADD_TASK in err and LESSON in err
    assert "model scripted · policy self_heal · sandbox local" in err, "the start line names the policy in use"
    first, second = err.split("attempt 1: diff", 1)[1].split("attempt 2: diff", 1)
    assert "+    return a - b" in first
    assert "-    return a - b" in second and "+    return a + b" in second


def test_the_spinner_shows_what_runs_the_elapsed_time_and_the_time_left() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context(deadline_s=300), reflects=True)
    narrator.started -= 75  # the run began 75 s ago
    narrator.doing.started = narrator.started
    narrator.doing.ends -= 75
    narrator.on_event({"kind": "run_started", "first": "model", "files": 0})
    shown = Console(file=io.StringIO(), width=400)
    with shown.capture() as capture:
        shown.print(narrator.doing)
    assert capture.get().strip() == "attempt 1 of 3: writing code · 75 s · 225 s left"
    narrator.on_event({"kind": "attempt_started", "attempt": 2, "max_attempts": 3, "seconds_left": 100.4})
    with shown.capture() as capture:
        shown.print(narrator.doing)
    assert capture.get().strip().endswith("· 100 s left")  # the run's own clock, as its event says


def test_an_attempt_line_says_how_long_is_left_and_a_run_out_of_time_says_so() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context(deadline_s=300), reflects=True)
    narrator.on_event({"kind": "attempt_started", "attempt": 1, "max_attempts": 3, "seconds_left": 40.2})
    narrator.on_event({"kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 0, "total": 1,
                       "summary": "failed 0/1", "seconds": 1.0, "sandbox_seconds": 1.0, "isolation": "bwrap"})
    narrator.on_event({"kind": "status", "status": "deadline", "attempts": 1})
    text = out.getvalue()
    assert "attempt 1: failed, 0 of 1 passed (1 failed); tests ran 1.0 s (bwrap sandbox); 40 s left" in text
    assert "deadline after 1 attempt(s)" in text
    assert "the run's time (300 s) ran out: its best attempt so far is reported" in text
