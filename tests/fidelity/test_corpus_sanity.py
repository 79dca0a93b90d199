"""The corpus's own sanity, by plain pytest alone (no codeheal): every honest solution passes,
every wrong twin fails on a test (not at collection), and the corpus has the breadth issue 73
asks (over 200 shapes, 12 to 21 per family, names unique)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fidelity.corpus import plain_verdicts
from tests.fidelity.shapes import FAMILIES, all_shapes

SHAPES = all_shapes()

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def plain():
    return plain_verdicts(SHAPES)


def test_breadth() -> None:
    per_family = Counter(s.family for s in SHAPES)
    assert len(SHAPES) >= 220
    assert set(per_family) == set(FAMILIES)
    assert all(12 <= n <= 21 for n in per_family.values()), per_family
    assert len({s.id for s in SHAPES}) == len(SHAPES)


def test_honest_solutions_pass_plain_pytest(plain) -> None:
    failing = {s.id: sorted(plain[(s.id, "honest")].failing) for s in SHAPES if not plain[(s.id, "honest")].passed}
    assert failing == {}


def test_wrong_twins_fail_plain_pytest_on_a_test(plain) -> None:
    passing = [s.id for s in SHAPES if plain[(s.id, "wrong")].passed]
    assert passing == []
    at_collection = {s.id: sorted(plain[(s.id, "wrong")].failing) for s in SHAPES
                     if not all("::" in name or name.startswith("test_") for name in plain[(s.id, "wrong")].failing)
                     or not plain[(s.id, "wrong")].failing}
    assert at_collection == {}
