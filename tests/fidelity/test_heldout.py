"""The held-out fidelity shapes (tests/fidelity/heldout.py): their own sanity by plain pytest
alone (every honest solution passes, every wrong twin fails on a test, not at collection), then
codeheal against plain pytest on each in bwrap, overall verdict and failing tests' names.
Slow: the comparison judges all of them once, on the first test that asks."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fidelity.corpus import VARIANTS, Comparison, compare, plain_verdicts
from tests.fidelity.heldout import SHAPES
from tests.fidelity.shapes import all_shapes

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

ISOLATION = "bwrap"


@pytest.fixture(scope="module")
def plain():
    return plain_verdicts(SHAPES)


def test_breadth_and_new_names() -> None:
    assert len(SHAPES) >= 60
    assert len({s.id for s in SHAPES}) == len(SHAPES)
    assert all(s.family.startswith("heldout-") for s in SHAPES)
    assert not {s.name for s in SHAPES} & {s.name for s in all_shapes()}
    assert min(Counter(s.family for s in SHAPES).values()) >= 5


def test_honest_solutions_pass_plain_pytest(plain) -> None:
    failing = {s.id: sorted(plain[(s.id, "honest")].failing) for s in SHAPES if not plain[(s.id, "honest")].passed}
    assert failing == {}


def test_wrong_twins_fail_plain_pytest_on_a_test(plain) -> None:
    passing = [s.id for s in SHAPES if plain[(s.id, "wrong")].passed]
    assert passing == []
    at_collection = {s.id: sorted(plain[(s.id, "wrong")].failing) for s in SHAPES
                     if not plain[(s.id, "wrong")].failing
                     or plain[(s.id, "wrong")].failing & {"<collection>", "test_solution.py"}}
    assert at_collection == {}


@pytest.fixture(scope="module")
def judged() -> dict[str, Comparison]:
    """Every held-out case in bwrap, compared once."""
    return {c.case.id: c for c in compare(SHAPES, [ISOLATION])}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("shape_id", [s.id for s in SHAPES])
def test_codeheal_agrees_with_plain_pytest(judged, shape_id: str, variant: str) -> None:
    c = judged[f"{shape_id}:{variant}:{ISOLATION}"]
    assert c.agrees, c.explain()
