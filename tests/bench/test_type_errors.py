"""The type-error corpus (codeheal_bench/type_errors.py): drawn by its rule, each case one line
away from its project, every kind present, the split fixed (no sandbox, no model)."""

from __future__ import annotations

import difflib
from collections import Counter

from codeheal_bench.type_errors import KINDS, TUNING, type_cases


def test_the_rule_draws_each_kind_one_line_from_its_project_in_a_fixed_split() -> None:
    cases = list(type_cases())
    assert len(cases) == 17 and len({case.name for case in cases}) == len(cases)
    assert set(Counter(case.kind for case in cases)) == set(KINDS)
    for case in cases:
        changed = [line for line in difflib.unified_diff(case.right.splitlines(), case.files[case.file].splitlines(),
                                                         lineterm="", n=0)
                   if line[:1] in "+-" and not line.startswith(("---", "+++"))]
        assert len(changed) == 2, case.name
        assert case.split == ("tuning" if case.project in TUNING else "report")
    assert Counter(case.split for case in cases) == {"tuning": 6, "report": 11}
