"""The corpus drawn by rule (codeheal_bench/corpus.py), without a model: the split is fixed by
the case's name, and the draw keeps only mutants that exactly one or two test files catch."""

from __future__ import annotations

from codeheal_bench.corpus import CorpusLibrary, draw_library, failing_test_files, half_of, load_cases
from codeheal_bench.seeded import seed

LIBRARY = CorpusLibrary("tiny", "1", "", ("tiny", "tests"), "python -m pytest -q -o addopts= tests")
FILES = {
    "tiny/__init__.py": "",
    "tiny/core.py": (
        "def clamp(x, low, high):\n    if x < low:\n        return low\n    return min(x, high)\n\n\n"
        "def total(items):\n    result = 0\n    for item in items:\n        result += item\n    return result\n"
    ),
    "tests/test_clamp.py": "from tiny.core import clamp\n\n\ndef test_clamp():\n    assert clamp(5, 0, 3) == 3\n"
                           "    assert clamp(-1, 0, 3) == 0\n    assert clamp(2, 0, 3) == 2\n",
    "tests/test_total.py": "from tiny.core import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n",
    "tests/test_both.py": "from tiny.core import clamp, total\n\n\ndef test_both():\n"
                          "    assert clamp(total([1, 1]), 0, 9) == 2\n",
}


def test_the_split_is_fixed_by_the_name_and_the_committed_cases_follow_it() -> None:
    assert half_of("six-with_metaclass-830") == half_of("six-with_metaclass-830")
    assert {half_of(f"case-{i}") for i in range(20)} == {"tuning", "report"}
    for case in load_cases():
        assert half_of(case.name) in ("tuning", "report")
        assert 1 <= len(case.test_files) <= 2 and case.line != case.seeded


def test_a_drawn_case_is_caught_by_one_or_two_test_files_and_seeds_as_drawn() -> None:
    assert failing_test_files(FILES, LIBRARY) == []
    cases = draw_library(LIBRARY, FILES, log=lambda *_: None)
    assert cases and len({case.function for case in cases}) == len(cases)  # one per function
    for case in cases:
        buggy = seed(FILES, case)
        assert buggy[case.file] != FILES[case.file]
        assert failing_test_files(buggy, LIBRARY) == list(case.test_files)
        assert case.test_command == f"python -m pytest -q -o addopts= {' '.join(case.test_files)}"
