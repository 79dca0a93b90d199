"""Feedback: parsed from the plugin's JSON-lines report and the sandbox's RunResult."""

from __future__ import annotations

import json

from codeheal.evaluation.feedback import run_feedback, summarize
from codeheal.evaluation.jobs import make_job
from codeheal.forms.module.candidate import _from_run, feedback_without_running
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import RunResult

SAMPLE_IDS = [f"test_solution.py::{name}" for name in ("test_fx", "test_line_10", "test_line_11", "test_line_12")]
SAMPLE_REPORT = "\n".join(json.dumps(e) for e in [
    {"event": "start"},
    {"event": "collected", "tests": SAMPLE_IDS, "watched": SAMPLE_IDS},
    {"event": "begin", "test": "test_solution.py::test_fx"},
    {"event": "result", "test": "test_solution.py::test_fx", "name": "test_fx", "when": "setup",
     "outcome": "failed", "exception": "RuntimeError", "message": "fixture down",
     "frames": [{"file": "test_solution.py", "line": 6, "function": "broken",
                 "source": "raise RuntimeError('fixture down')"}]},
    {"event": "begin", "test": "test_solution.py::test_line_10"},
    {"event": "result", "test": "test_solution.py::test_line_10", "name": "test_line_10",
     "when": "call", "outcome": "failed", "exception": "AssertionError",
     "message": "assert -1 == 5",
     "frames": [{"file": "test_solution.py", "line": 11, "function": "test_line_10",
                 "source": "assert add(2, 3) == 5"}],
     "expected": "5", "actual": "-1"},
    {"event": "begin", "test": "test_solution.py::test_line_11"},
    {"event": "result", "test": "test_solution.py::test_line_11", "name": "test_line_11",
     "when": "call", "outcome": "failed", "exception": "ValueError", "message": "neg",
     "frames": [{"file": "test_solution.py", "line": 12, "function": "test_line_11",
                 "source": "assert add(-1, 1) == 0"},
                {"file": "solution.py", "line": 3, "function": "add",
                 "source": "raise ValueError('neg')"}]},
    {"event": "begin", "test": "test_solution.py::test_line_12"},
    {"event": "ended", "test": "test_solution.py::test_line_12"},
    {"event": "result", "test": "test_solution.py::test_line_12", "name": "test_line_12",
     "when": "call", "outcome": "passed"},
    {"event": "finish", "exitstatus": 1, "collected": 4},
]) + "\n"


SAMPLE_NAMES = {"test_fx", "test_line_10", "test_line_11", "test_line_12"}


def result(report: str, exit_code=1, stdout="", stderr="", timed_out=False, truncated=False) -> RunResult:
    """The RunResult of a job whose report plugin wrote `report`, as its supervisor passes it
    on: each line as evidence, then (unless the job was killed) its record of the exit."""
    return RunResult(exit_code=exit_code, stdout=stdout, stderr=stderr, timed_out=timed_out,
                     output_truncated=truncated, seconds=0.5, isolation="basic",
                     report=supervised(report, None if timed_out else exit_code))


def supervised(report: str, exit_code: int | None) -> str:
    lines = []
    for line in report.splitlines():
        try:
            lines.append(json.dumps({"evidence": json.loads(line)}))
        except json.JSONDecodeError:
            lines.append(line)  # a line cut by a kill
    if exit_code is not None:
        lines.append(json.dumps({"supervisor": {"exit_code": exit_code, "forged_lines": 0, "evidence_cut": False}}))
    return "\n".join(lines) + "\n"


def test_counts_and_per_failure_details_from_a_report():
    feedback = run_feedback(result(SAMPLE_REPORT), SAMPLE_NAMES)
    assert not feedback["passed"]
    assert (feedback["passed_count"], feedback["total"]) == (1, 4)
    assert feedback["error"] is None
    by_test = {f["test"]: f for f in feedback["failures"]}
    assert set(by_test) == {"test_fx (setup)", "test_line_10", "test_line_11"}

    compare = by_test["test_line_10"]
    assert (compare["exception"], compare["expected"], compare["actual"]) == ("AssertionError", "5", "-1")
    assert compare["line"] is None  # the traceback never reached solution.py

    raised = by_test["test_line_11"]
    assert (raised["exception"], raised["message"], raised["line"]) == ("ValueError", "neg", 3)
    # Frames in the generated module are reported as lines of the user's tests.py.
    assert [(f["file"], f["line"]) for f in raised["frames"]] == [("tests.py", 11), ("solution.py", 3)]
    assert summarize(feedback).startswith("failed 1/4 passed; test_fx (setup): RuntimeError")


def test_all_passing_report():
    report = "\n".join(json.dumps(e) for e in [
        {"event": "start"},
        {"event": "collected", "tests": ["t::test_a"], "watched": ["t::test_a"]},
        {"event": "ended", "test": "t::test_a"},
        {"event": "result", "test": "t::test_a", "name": "test_a", "when": "call", "outcome": "passed"},
        {"event": "finish", "exitstatus": 0, "collected": 1},
    ])
    feedback = run_feedback(result(report, exit_code=0), {"test_a"})
    assert feedback["passed"] and (feedback["passed_count"], feedback["total"]) == (1, 1)
    assert summarize(feedback) == "passed 1/1"


def test_timeout_names_the_check_still_running_and_ignores_a_cut_line():
    report = SAMPLE_REPORT.split('{"event": "begin", "test": "test_solution.py::test_line_12"}')[0]
    report += '{"event": "begin", "test": "test_solution.py::test_line_12"}\n{"event": "res'
    feedback = run_feedback(result(report, exit_code=None, timed_out=True), SAMPLE_NAMES)
    assert feedback["timed_out"] and not feedback["passed"]
    assert "still running test_line_12" in feedback["error"]
    assert feedback["total"] == 4 and feedback["passed_count"] == 0
    assert feedback["failures"][-1]["exception"] == "Timeout"


def test_collect_error_means_the_tests_could_not_load():
    report = "\n".join(json.dumps(e) for e in [
        {"event": "start"},
        {"event": "collect_error", "test": "test_solution.py", "exception": "ModuleNotFoundError",
         "message": "No module named 'numpyy'", "frames": []},
        {"event": "finish", "exitstatus": 2, "collected": 0},
    ])
    feedback = run_feedback(result(report, exit_code=2), set())
    assert not feedback["passed"]
    assert feedback["error"] == "the tests could not be loaded: ModuleNotFoundError: No module named 'numpyy'"


def test_a_run_that_never_finished_is_a_crash_with_the_last_stderr_line():
    report = json.dumps({"event": "start"}) + "\n"
    feedback = run_feedback(result(report, exit_code=1, stderr="boom\nFatal Python error: Aborted\n"), {"test_a"})
    assert not feedback["passed"]
    assert feedback["error"] == "the test process ended early with exit code 1: Fatal Python error: Aborted"


def test_no_tests_collected_is_not_a_pass():
    report = "\n".join(json.dumps(e) for e in [
        {"event": "start"}, {"event": "collected", "tests": [], "watched": []},
        {"event": "finish", "exitstatus": 5, "collected": 0}])
    feedback = run_feedback(result(report, exit_code=5), set())
    assert not feedback["passed"] and feedback["error"] == "no tests were collected"


def test_output_tails_are_capped_and_ansi_free():
    feedback = run_feedback(result(SAMPLE_REPORT, stdout="\x1b[31mred\x1b[0m" + "x" * 10_000, truncated=True), SAMPLE_NAMES)
    assert feedback["stdout"].startswith("...[cut]...") and len(feedback["stdout"]) < 2100
    assert "\x1b[" not in feedback["stdout"]
    assert feedback["output_truncated"]


def test_empty_candidate_and_syntax_error_need_no_run():
    assert "no code in reply" in feedback_without_running("   \n")["error"]
    feedback = feedback_without_running("def f(:\n    pass\n")
    assert feedback["error"].splitlines()[0].endswith("(solution.py line 1)")
    assert feedback["failures"][0]["line"] == 1
    assert feedback_without_running("def f():\n    pass\n") is None


def evaluate(code: str, tests: str, timeout_s: float = 5.0):
    return _from_run(LocalSandbox().run(make_job(code, tests, timeout_s)), tests)


def test_real_run_reports_comparison_print_output_and_candidate_line():
    code = "def add(a, b):\n    print('adding', a, b)\n    return a - b\n"
    feedback = evaluate(code, "assert add(2, 3) == 5\nassert add(0, 0) == 0\n")
    assert (feedback["passed_count"], feedback["total"]) == (1, 2)
    failure = feedback["failures"][0]
    assert (failure["test"], failure["expected"], failure["actual"]) == ("test_line_1", "5", "-1")
    assert "adding 2 3" in feedback["stdout"]
    assert all("_pytest" not in f["file"] and "pluggy" not in f["file"] for f in failure["frames"])


def test_two_long_values_that_share_their_start_are_shown_where_they_differ():
    # a list missing its last item (QuixBugs' wrap): the cut head of both sides is the same,
    # so each side is shown from a little before the first difference
    code = "def lines(n):\n    return [f'line number {i:04}' for i in range(n)][:-1]\n"
    failure = evaluate(code, "assert lines(60) == [f'line number {i:04}' for i in range(60)]\n")["failures"][0]
    assert failure["expected"] != failure["actual"]
    assert failure["expected"].startswith("...") and failure["actual"].startswith("...")
    assert "'line number 0059'" in failure["expected"] and "'line number 0059'" not in failure["actual"]
    assert failure["actual"].endswith("'line number 0058']")
    short = evaluate("def f():\n    return [1, 2]\n", "assert f() == [1, 2, 3]\n")["failures"][0]
    assert (short["expected"], short["actual"]) == ("[1, 2, 3]", "[1, 2]")


def test_real_run_with_an_import_error_in_the_candidate():
    feedback = evaluate("import numpyy\n\ndef add(a, b):\n    return a + b\n", "assert add(1, 1) == 2\n")
    assert not feedback["passed"]
    assert "could not be loaded" in feedback["error"] and "numpyy" in feedback["error"]


def test_real_run_where_the_candidate_exits_early_is_not_a_pass():
    code = "import os\n\ndef add(a, b):\n    os._exit(0)\n"
    feedback = evaluate(code, "assert add(1, 1) == 2\n")
    assert not feedback["passed"]
    assert "the candidate's process ended (exit code 0)" in str(feedback)
