"""Finding the line before asking for it: the report plugin's per-test line coverage from a
real pytest run in the local sandbox, ranked by Ochiai plus the traceback's frames."""

from __future__ import annotations

import math
import os
import shutil
import subprocess

import pytest

from codeheal.evaluation.coverage import coverage_by_test
from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.job import project_job
from codeheal.forms.project.mutations import default_lines
from codeheal.forms.project.suspicious import FRAME_BONUS, rank_lines
from codeheal.forms.project.task import parse_test_command
from codeheal.sandboxes import LocalSandbox
from codeheal.state import CheckFailure, Frame

CALENDAR = '''"""Days in a month."""

LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in(year: int, month: int) -> int:
    days = LENGTHS[month - 1]
    if month == 2 and is_leap(year):
        days = days - 1
    return days


def spin(n: int) -> int:
    while n != 0:
        n = n - 2
    return n
'''
SEEDED_LINE = 13
"""`days = days - 1`: a leap February has one day more, not one less."""
TESTS = '''from calendar_days import days_in, spin


def test_january():
    assert days_in(2023, 1) == 31


def test_february():
    assert days_in(2023, 2) == 28


def test_leap_february():
    assert days_in(2024, 2) == 29


def test_leap_february_2000():
    assert days_in(2000, 2) == 29


def test_december():
    assert days_in(2024, 12) == 31
'''
FILES = {"calendar_days.py": CALENDAR, "test_calendar.py": TESTS}


def covered_run(files: dict[str, str], python: str | None = None, timeout_s: float = 60):
    result = LocalSandbox().run(project_job(files, parse_test_command("python -m pytest -q"), timeout_s,
                                            python=python, coverage=True))
    return result, run_feedback(result, None)


def test_a_real_run_ranks_the_seeded_line_first() -> None:
    result, feedback = covered_run(FILES)
    coverage = coverage_by_test(result)
    assert sorted(feedback["tests_failed"]) == [
        "test_calendar.py::test_leap_february", "test_calendar.py::test_leap_february_2000"]
    assert coverage["test_calendar.py::test_january"]["calendar_days.py"] == {11, 12, 14}
    assert coverage["test_calendar.py::test_leap_february"]["calendar_days.py"] == {7, 11, 12, 13, 14}
    ranking = rank_lines(coverage, feedback["tests_failed"], feedback["failures"], FILES)
    assert coverage["test_calendar.py::test_leap_february"]["test_calendar.py"]  # traced, never ranked
    assert {e["file"] for e in ranking} == {"calendar_days.py"}
    assert (ranking[0]["file"], ranking[0]["line"]) == ("calendar_days.py", SEEDED_LINE)
    assert ranking[0]["score"] == 1.0  # executed by both failing tests and by no passing one
    # is_leap: both failing tests and test_february (which passes): 2 / sqrt(2 * 3)
    assert next(e["score"] for e in ranking if e["line"] == 7) == round(2 / math.sqrt(6), 3)
    assert all(e["line"] != 19 for e in ranking)  # spin: no test runs it


def test_without_the_request_no_coverage_is_recorded() -> None:
    result = LocalSandbox().run(project_job(FILES, parse_test_command("python -m pytest -q"), 60))
    assert run_feedback(result, None)["tests_failed"]
    assert coverage_by_test(result) == {}


def test_a_test_killed_at_the_deadline_still_has_its_coverage() -> None:
    files = {**FILES, "test_calendar.py": TESTS + "\n\ndef test_spin():\n    assert spin(3) == -1\n"}
    result, feedback = covered_run(files, timeout_s=4)
    assert feedback["timed_out"]
    coverage = coverage_by_test(result)
    assert coverage["test_calendar.py::test_spin"]["calendar_days.py"] == {18, 19}
    hung = set(coverage) - set(feedback["tests_ran"])
    ranking = rank_lines(coverage, set(feedback["tests_failed"]) | hung, feedback["failures"], files)
    assert {(e["line"], e["score"]) for e in ranking} >= {(18, round(1 / math.sqrt(3), 3)), (SEEDED_LINE, round(2 / math.sqrt(6), 3))}


def python_with_monitoring() -> str | None:
    """An interpreter of Python 3.12+ with pytest: $CODEHEAL_TEST_PYTHON312, else python3.12 or
    python3.13 on PATH when it imports pytest."""
    for python in (os.environ.get("CODEHEAL_TEST_PYTHON312"), shutil.which("python3.12"), shutil.which("python3.13")):
        if python and subprocess.run([python, "-c", "import sys, pytest; assert sys.version_info >= (3, 12)"],
                                     capture_output=True).returncode == 0:
            return python
    return None


def test_sys_monitoring_records_the_same_lines_on_python_3_12() -> None:
    python = python_with_monitoring()
    if python is None:
        pytest.skip("no Python 3.12+ with pytest (set CODEHEAL_TEST_PYTHON312 to one)")
    result, feedback = covered_run(FILES, python=python)
    coverage = coverage_by_test(result)
    assert coverage["test_calendar.py::test_leap_february"]["calendar_days.py"] == {7, 11, 12, 13, 14}
    ranking = rank_lines(coverage, feedback["tests_failed"], feedback["failures"], FILES)
    assert (ranking[0]["line"], ranking[0]["score"]) == (SEEDED_LINE, 1.0)


def test_traceback_frames_raise_their_lines() -> None:
    files = {"m.py": "def f(x):\n    y = x + 1\n    return g(y)\n\n\ndef g(y):\n    return 1 / (y - 2)\n", "test_m.py": ""}
    coverage = {"test_m.py::test_one": {"m.py": {2, 3, 7}}, "test_m.py::test_two": {"m.py": {2, 3, 7}}}
    frames = [Frame(file="test_m.py", line=4, function="test_one", source=""),
              Frame(file="m.py", line=3, function="f", source=""), Frame(file="m.py", line=7, function="g", source="")]
    failure = CheckFailure(test="test_one", exception="ZeroDivisionError", message="", line=None, frames=frames,
                           expected=None, actual=None)
    ranking = rank_lines(coverage, {"test_m.py::test_one"}, [failure], files)
    ochiai = round(1 / math.sqrt(2), 3)
    assert [(e["line"], e["score"]) for e in ranking] == [
        (7, round(ochiai + FRAME_BONUS, 3)), (3, round(ochiai + FRAME_BONUS / 2, 3)), (2, ochiai)]


def test_a_def_line_with_a_default_ranks_with_its_functions_entry_after_its_ties() -> None:
    source = ('def page(items, size=11):\n    """A page."""\n    return items[:size]\n\n\n'
              'def last(items, n=1):\n    return items[-n:]\n\n\ndef first(items):\n    return items[0]\n\n\n'
              'def pick(items, key=None):\n    return items\n')
    files = {"m.py": source, "test_m.py": ""}
    coverage = {"test_m.py::test_page": {"m.py": {3, 15}}, "test_m.py::test_last": {"m.py": {7, 11}}}
    ranking = rank_lines(coverage, {"test_m.py::test_page"}, [], files, default_lines(files, coverage))
    # `page`'s def line after the lines it ties with; `last`, which no failing test calls, not at
    # all; nor `pick`, whose only default (None) the screen leaves alone
    assert [(e["line"], e["score"]) for e in ranking] == [(3, 1.0), (15, 1.0), (1, 1.0)]
