"""The fast subset's sample of the fidelity corpus: every 12th shape (all_shapes()[::12], 19 of
221, from every family), honest and wrong, in bwrap only, judged by codeheal and by
plain pytest (which must pass the honest solution and fail its twin); test_fidelity.py and
test_corpus_sanity.py run the whole corpus, in both isolation modes, in the full suite."""

from __future__ import annotations

import pytest

from tests.fidelity.corpus import VARIANTS, Comparison, compare
from tests.fidelity.shapes import all_shapes

SAMPLE = all_shapes()[::12]

pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def judged() -> dict[str, Comparison]:
    return {c.case.id: c for c in compare(SAMPLE, ["bwrap"])}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("shape_id", [s.id for s in SAMPLE])
def test_codeheal_agrees_with_plain_pytest(judged, shape_id: str, variant: str) -> None:
    c = judged[f"{shape_id}:{variant}:bwrap"]
    assert c.plain.passed is (variant == "honest"), c.explain()
    assert c.agrees, c.explain()
