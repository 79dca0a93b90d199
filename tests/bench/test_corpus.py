"""The corpus drawn by rule (codeheal_bench/corpus.py), without a model: the split is fixed by
the case's name, and the draw keeps only mutants that exactly one or two test files catch; the
localisation measure (corpus_localisation.py) ranks a case's buggy line."""

from __future__ import annotations

from codeheal_bench.corpus import CorpusCase, CorpusLibrary, draw_library, failing_test_files, half_of, load_cases
from codeheal_bench.corpus_localisation import located, ranking
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


def test_localisation_ranks_the_buggy_line_and_tells_the_traceback_s_bugs_from_the_others() -> None:
    """The run of the project as it is ranks its lines (real coverage, no model); a crash in
    the buggy function puts it on the traceback, a wrong sum that the test's assert catches not."""
    crash = CorpusCase(name="tiny-clamp", library="tiny", kind="test", file="tiny/core.py",
                       line="        return low", seeded="        return low.nope", test_file="tests/test_clamp.py",
                       test_files=("tests/test_clamp.py",), line_number=3)
    wrong = CorpusCase(name="tiny-total", library="tiny", kind="test", file="tiny/core.py",
                       line="        result += item", seeded="        result -= item", test_file="tests/test_total.py",
                       test_files=("tests/test_total.py",), line_number=10)
    found = []
    for case in (crash, wrong):
        buggy = seed(FILES, case)
        found.append(located(case, buggy, ranking(buggy, case.test_command, 60.0)))
    assert [f["on_traceback"] for f in found] == [True, False]
    assert all(f["rank"] is not None and f["rank"] <= 5 and f["in_scope"] and f["rank_in_scope"] for f in found), found
