"""The repair context: what the actor sees, and how it is trimmed to a budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeheal.forms.project.edits import Target
from codeheal.forms.project.prompts import FIX_REPLY, fix_actor_messages
from codeheal.forms.project.repair_context import PromptTooLargeError, repair_context, repair_scope
from codeheal.forms.project.snapshot import read_project
from codeheal.state import CheckFailure, Frame, SuspiciousLine
from codeheal.tokens import estimate_tokens

SHOP = read_project(Path(__file__).with_name("fixtures") / "shop").files
TARGET = [Target("shop/pricing.py", "bulk_discount")]


def cart_failure(quantity: int, expected: int, actual: int) -> CheckFailure:
    frame = Frame(file="tests/test_cart.py", line=13, function="test_total", source="assert cart.total() == expected")
    return CheckFailure(
        test=f"test_total[{quantity}-{expected}]", exception="AssertionError",
        message=f"assert {actual} == {expected}", line=None, frames=[frame],
        expected=str(expected), actual=str(actual),
    )


CART = [cart_failure(10, 450, 500), cart_failure(20, 850, 900), cart_failure(50, 2000, 2125), cart_failure(100, 3750, 4000)]


def crash(test: str, line: int) -> CheckFailure:
    """A failure whose traceback runs from the test into the project's code."""
    frames = [
        Frame(file="tests/test_pricing.py", line=5, function=test, source="assert line_total(240, 3) == 720"),
        Frame(file="shop/pricing.py", line=18, function="line_total", source="return gross - ..."),
        Frame(file="shop/pricing.py", line=line, function="bulk_discount", source="if quantity > threshold:"),
    ]
    return CheckFailure(test=test, exception="TypeError", message="'>' not supported", line=line,
                        frames=frames, expected=None, actual=None)


def test_parametrised_failures_are_one_entry_with_examples_and_the_count() -> None:
    text = repair_context(CART, SHOP, 4000, targets=TARGET)
    assert text.startswith("Failing tests:\n- test_total (tests/test_cart.py) failed for 4 inputs, e.g.:")
    assert "test_total[10-450]: AssertionError: assert 500 == 450\n      expected 450, got 500" in text
    assert "test_total[50-2000]" in text and "test_total[100-3750]" not in text
    assert "@pytest.mark.parametrize(" in text, "the test's source shows its inputs"
    assert "shop/pricing.py, bulk_discount (lines 7-12):\n     7 | def bulk_discount" in text
    assert "    10 |         if quantity > threshold:" in text
    assert 'Test data, tests/data/catalog.json:\n{\n  "apple": 50,' in text
    assert text.index("Failing tests") < text.index("tests/test_cart.py, test_total") < text.index("shop/pricing.py") < text.index("Test data")


def test_project_frames_are_shown_with_the_failing_lines_marked() -> None:
    text = repair_context([crash("test_no_discount_for_a_few", 10)], SHOP, 4000)
    assert ">>  10 |         if quantity > threshold:" in text
    assert "shop/pricing.py, line_total (lines 15-18):" in text
    assert ">>  18 |     return gross - gross * bulk_discount(quantity) // 100" in text


def test_trimming_keeps_the_minimum_and_drops_the_rest_in_order() -> None:
    failures = [*CART, crash("test_no_discount_for_a_few", 10)]
    full = repair_context(failures, SHOP, 100_000)
    sizes = []
    for budget in (estimate_tokens(full), 467, 292, 187):
        text = repair_context(failures, SHOP, budget)
        assert estimate_tokens(text) <= budget
        assert "test_total[10-450]" in text and ">>  10 |         if quantity > threshold:" in text
        sizes.append(len(text))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    tight = repair_context(failures, SHOP, 187)
    assert "Test data" not in tight and "test_total[20-850]" not in tight
    assert "test_no_discount_for_a_few (tests/test_pricing.py) failed (1 time)" in tight


def test_minimum_that_does_not_fit_is_a_clear_error() -> None:
    with pytest.raises(PromptTooLargeError, match=r"need about \d+ tokens, over the budget of 20"):
        repair_context(CART, SHOP, 20, targets=TARGET)
    least = repair_context(CART, SHOP, 20, targets=TARGET, least=True)
    assert least == repair_context(CART, SHOP, estimate_tokens(least), targets=TARGET), "the least, over the budget"


def test_a_prompt_whose_least_context_does_not_fit_drops_its_tail_then_is_sent_at_its_least() -> None:
    asked = dict(task="heal the shop", test_command="pytest -q", failures=CART, files=SHOP, targets=TARGET,
                 reflections=["a lesson " * 40], last_feedback=None, refused=["an outcome " * 20], reply_tokens=100)
    roomy = fix_actor_messages(**asked, window=4096)[-1].text
    assert "a lesson" in roomy and "an outcome" in roomy
    tight = fix_actor_messages(**asked, window=300, strict=False)[-1].text
    assert "a lesson" not in tight and "an outcome" not in tight and FIX_REPLY in tight
    assert ">>  10 |         if quantity > threshold:" in tight or "bulk_discount" in tight
    with pytest.raises(PromptTooLargeError):
        fix_actor_messages(**asked, window=300)


CHAIN = {
    "lib/core.py": (
        "".join(f"def setup_{i}():\n    return {i}\n\n\n" for i in range(8))
        + "def outer(values):\n    cleaned = [v for v in values]\n    return middle(cleaned)\n\n\n"
        "def middle(values):\n    total = 0\n    for value in values:\n        total += 1\n"
        "    return scale(total)\n\n\n"
        "def scale(total):\n    factor = 2\n    return total * factor + 1\n"
    ),
    "tests/test_core.py": (
        "from lib.core import *\n\n\ndef test_outer():\n"
        + "".join(f"    setup_{i}()\n" for i in range(8))
        + "    assert outer([1, 2]) == 4\n"
    ),
}


def test_the_chain_of_calls_to_a_suspicious_helper_is_shown_and_in_the_scope() -> None:
    """The failing test's assert stops the traceback in the test; the helper that holds the
    suspicious line is reached through two other functions, past more called functions than
    the prompt lists by name: the chain shows it whole, its callers around the calls."""
    source = CHAIN["lib/core.py"].splitlines()
    buggy = source.index("    return total * factor + 1") + 1
    failure = CheckFailure(test="test_outer", exception="AssertionError", message="assert 5 == 4", line=None,
                           frames=[Frame(file="tests/test_core.py", line=13, function="test_outer",
                                         source="assert outer([1, 2]) == 4")], expected="4", actual="5")
    suspicious = [SuspiciousLine(file="lib/core.py", line=buggy, score=1.0)]
    text = repair_context([failure], CHAIN, 100_000, suspicious=suspicious)
    assert f">>{buggy:4d} |     return total * factor + 1" in text and "scale (lines" in text
    call_middle, call_scale = source.index("    return middle(cleaned)") + 1, source.index("    return scale(total)") + 1
    assert f">>{call_middle:4d} |     return middle(cleaned)" in text and f">>{call_scale:4d} |     return scale(total)" in text
    assert text.index("outer (lines") < text.index("middle (lines") < text.index("scale (lines")
    assert {("lib/core.py", name) for name in ("outer", "middle", "scale")} <= repair_scope(
        [failure], CHAIN, suspicious=suspicious)
    assert ("lib/core.py", "scale") not in repair_scope([failure], CHAIN), "without the ranking: the named calls alone"
