"""A failure keeps at most FRAMES_HEAD + FRAMES_TAIL traceback frames, the outermost and the
innermost, and says how many it left out, whatever depth the candidate's calls reached: from a
real run in the sandbox (a recursion that never ends, two functions calling each other), from
the report plugin's evidence, and from a test command's output (the project form). Before
this, a runaway recursion put about 1,000 frames in the state and a 45,000-token prompt to
the model (MBPP/392 under `self_heal`)."""

from __future__ import annotations

import json

from codeheal.evaluation.feedback import FRAMES_HEAD, FRAMES_TAIL, run_feedback
from codeheal.evaluation.jobs import make_job
from codeheal.forms.module.candidate import _from_run
from codeheal.forms.project.tracebacks import read_output
from codeheal.prompting.parts import format_feedback
from codeheal.sandboxes import LocalSandbox
from test_feedback import result

LIMIT = FRAMES_HEAD + FRAMES_TAIL

RUNAWAY = """
def get_max_sum(n):
    if n == 0:
        return 0
    return max(get_max_sum(n / 2) + get_max_sum(n / 3), n)
"""
MUTUAL = """
def is_even(n):
    return True if n == 0 else is_odd(n - 1)

def is_odd(n):
    return False if n == 0 else is_even(n - 1)
"""


def judged(code: str, tests: str):
    return _from_run(LocalSandbox().run(make_job(code, tests, 10.0)), tests)


def test_a_runaway_recursion_keeps_the_ends_of_its_traceback_and_a_short_prompt() -> None:
    feedback = judged(RUNAWAY, "assert get_max_sum(60) == 106\n")
    (failure,) = feedback["failures"]
    assert failure["exception"] == "RecursionError"
    assert len(failure["frames"]) == LIMIT
    assert failure["frames_left_out"] > 500
    assert failure["frames"][0]["file"] == "tests.py"  # the check that called it
    assert failure["line"] == failure["frames"][-1]["line"] == 3  # the innermost call, `if n == 0:`
    shown = format_feedback(feedback)
    assert f"... {failure['frames_left_out']} more frames ..." in shown
    assert len(shown) < 4000


def test_two_functions_calling_each_other_without_end() -> None:
    feedback = judged(MUTUAL, "assert is_even(10 ** 6)\n")
    (failure,) = feedback["failures"]
    assert len(failure["frames"]) == LIMIT and failure["frames_left_out"] > 500
    assert {f["function"] for f in failure["frames"][-4:]} == {"is_even", "is_odd"}


def test_evidence_with_thousands_of_frames_is_bounded_on_the_host() -> None:
    frames = [{"file": "solution.py", "line": 5, "function": "f", "source": "return f(n)"}] * 5000
    report = "\n".join(json.dumps(e) for e in [
        {"event": "start"},
        {"event": "collected", "tests": ["t::test_line_1"], "watched": ["t::test_line_1"]},
        {"event": "begin", "test": "t::test_line_1"},
        {"event": "result", "test": "t::test_line_1", "name": "test_line_1", "when": "call",
         "outcome": "failed", "exception": "RecursionError", "message": "maximum recursion depth exceeded",
         "frames": frames},
        {"event": "finish", "exitstatus": 1, "collected": 1},
    ])
    (failure,) = run_feedback(result(report), {"test_line_1"})["failures"]
    assert len(failure["frames"]) == LIMIT and failure["frames_left_out"] == 5000 - LIMIT
    assert failure["line"] == 5


def test_a_short_traceback_is_kept_whole_and_says_nothing_left_out() -> None:
    feedback = judged("def f(n):\n    return g(n)\n\ndef g(n):\n    return 1 / n\n", "assert f(0) == 1\n")
    (failure,) = feedback["failures"]
    assert [f["function"] for f in failure["frames"]] == ["test_line_1", "f", "g"]
    assert "frames_left_out" not in failure
    assert "more frames" not in format_feedback(feedback)


def test_a_test_commands_deep_traceback_is_bounded_too() -> None:
    calls = ['  File "shop/walk.py", line 2, in walk\n    return walk(node)\n'] * 900
    output = ("Traceback (most recent call last):\n"
              '  File "tests/test_walk.py", line 4, in test_walk\n    walk(1)\n'
              + "".join(calls) + "RecursionError: maximum recursion depth exceeded\n")
    (failure,) = read_output(output, {"shop/walk.py", "tests/test_walk.py"}).failures
    assert len(failure["frames"]) == LIMIT and failure["frames_left_out"] == 901 - LIMIT
    assert failure["frames"][0]["file"] == "tests/test_walk.py" and failure["line"] == 2
