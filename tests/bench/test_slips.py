"""The slip corpus (codeheal_bench/slips.py): at least 40 one-slip projects, drawn by its rule,
each failing as its kind says, and the screen's cheap repairs holding the right one for every
syntax slip (no sandbox, no model)."""

from __future__ import annotations

from collections import Counter

from codeheal.forms.project.syntax_slips import cheap_repairs, parse_error
from codeheal_bench.slips import KINDS, PROJECTS, slip_cases


def test_the_rule_draws_at_least_40_cases_of_every_kind() -> None:
    cases = slip_cases()
    assert len(cases) >= 40
    assert len({case.name for case in cases}) == len(cases)
    assert set(Counter(case.kind for case in cases)) == {kind.name for kind in KINDS}
    assert all(parse_error(text) is None for files in PROJECTS.values() for text in files.values())


def test_every_syntax_slip_has_its_right_repair_among_the_screens() -> None:
    for case in slip_cases():
        if case.kind != "misspelt-import":
            assert case.right in cheap_repairs(case.files[case.file]), case.name
