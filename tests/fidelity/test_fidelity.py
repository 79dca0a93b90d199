"""codeheal agrees with plain pytest on every shape of the corpus (issue 73): each shape's
honest solution and wrong twin, in both isolation modes, judged by `codeheal.aevaluate` and by
plain pytest in a trusted process; the overall verdict and the failing tests' names must agree.
Slow (tests/slow_files.txt): the fast subset runs test_fidelity_sample.py."""

from __future__ import annotations

import pytest

from tests.fidelity.corpus import ISOLATIONS, VARIANTS, Comparison, compare
from tests.fidelity.shapes import all_shapes

SHAPES = all_shapes()

pytestmark = pytest.mark.timeout(1800)  # the first test of each isolation mode judges them all


@pytest.fixture(scope="module")
def judged() -> dict[str, dict[str, Comparison]]:
    """Comparisons per isolation mode, each computed once, when first asked for."""
    return {}


def comparison(judged: dict[str, dict[str, Comparison]], shape_id: str, variant: str, isolation: str) -> Comparison:
    if isolation not in judged:
        judged[isolation] = {c.case.id: c for c in compare(SHAPES, [isolation])}
    return judged[isolation][f"{shape_id}:{variant}:{isolation}"]


@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("shape_id", [s.id for s in SHAPES])
def test_codeheal_agrees_with_plain_pytest(judged, shape_id: str, variant: str, isolation: str) -> None:
    c = comparison(judged, shape_id, variant, isolation)
    assert c.agrees, c.explain()
