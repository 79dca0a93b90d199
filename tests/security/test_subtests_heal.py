"""A library whose tests run about a thousand subtests (unittest's `subTest` in a TestCase,
and pytest's `subtests` fixture), with a one-line bug: the right fix is healed, counted per
test id (never more passes than checks), and a wrong one is not. Real bubblewrap sandbox,
the real graph, a scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from doubles import scripted

from codeheal import build_graph, resolve

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")

LIBRARY = '''"""Roman numerals."""

NUMERALS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
            (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]


def to_roman(number: int) -> str:
    """`number` (1..3999) in Roman numerals."""
    out = []
    for value, letters in NUMERALS:
        while number > value:
            out.append(letters)
            number -= value
    return "".join(out)


def from_roman(text: str) -> int:
    """The number Roman numerals `text` stand for."""
    total, rest = 0, text
    for value, letters in NUMERALS:
        while rest.startswith(letters):
            total += value
            rest = rest[len(letters):]
    return total
'''
UNITTEST_TESTS = '''import unittest

from roman import from_roman, to_roman


class RoundTrip(unittest.TestCase):
    def test_round_trip(self):
        for number in range(1, 1001):
            with self.subTest(number=number):
                self.assertEqual(from_roman(to_roman(number)), number)

    def test_known(self):
        for number, text in [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (1994, "MCMXCIV")]:
            with self.subTest(number=number):
                self.assertEqual(to_roman(number), text)
'''
PYTEST_TESTS = '''from roman import from_roman, to_roman


def test_lengths(subtests):
    for number in range(1, 200):
        with subtests.test(number=number):
            assert len(to_roman(number)) >= 1


def test_plain():
    assert from_roman("XII") == 12
'''
FIX = ("```python\n# roman.py\ndef to_roman(number: int) -> str:\n"
       '    """`number` (1..3999) in Roman numerals."""\n'
       "    out = []\n    for value, letters in NUMERALS:\n        while number >= value:\n"
       "            out.append(letters)\n            number -= value\n    return \"\".join(out)\n```\n")
WRONG = FIX.replace("number >= value", "number >= value + 1")
LESSON = "to_roman stops one short of each value: compare with >=."


@pytest.fixture
def library(tmp_path: Path) -> Path:
    project = tmp_path / "roman"
    (project / "tests").mkdir(parents=True)
    (project / "roman.py").write_text(LIBRARY)
    (project / "tests" / "test_roundtrip.py").write_text(UNITTEST_TESTS)
    (project / "tests" / "test_lengths.py").write_text(PYTEST_TESTS)
    (project / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    return project


def fix(project: Path, *replies: str) -> dict:
    return build_graph(llm=scripted(*replies)).compile().invoke(
        {"project": str(project), "test_command": "python -m pytest -q"},
        context=resolve({"max_attempts": 2, "mutants": 0, "timeout_s": 120, "reflect": False}).context,
    )


def test_the_right_fix_of_a_library_with_a_thousand_subtests_is_healed(library: Path) -> None:
    result = fix(library, FIX)
    assert result["status"] == "passed", result["feedback"]
    first, second = result["history"]
    assert first["total"] == second["total"] == 4  # test ids, whatever their subtests
    assert first["passed_count"] < first["total"] and second["passed_count"] == second["total"]


def test_a_wrong_fix_is_not_healed_and_never_counts_more_passes_than_tests(library: Path) -> None:
    result = fix(library, WRONG, WRONG)
    assert result["status"] == "failed"
    for attempt in result["history"]:
        assert attempt["passed_count"] <= attempt["total"] == 4
    last = result["history"][-1]
    assert not last.get("passed") and last["passed_count"] < last["total"]
    assert any(name in last["summary"] for name in ("test_round_trip", "test_known", "test_lengths")), last["summary"]
