"""Line-level candidates: a suspicious line's slot (the reply's start up to that line), and the
one-line reply spliced back into its function as a reply of corrected definitions."""

from __future__ import annotations

from codeheal.forms.project.diff import unified_diff
from codeheal.forms.project.edits import apply_reply
from codeheal.forms.project.line_candidates import functions_first, line_slots
from codeheal.state import SuspiciousLine

PRICING = '''"""Prices."""


def bulk_discount(quantity: int) -> int:
    """Percent off for buying `quantity` of one item."""
    for threshold, percent in ((100, 25), (10, 10)):

        if quantity > threshold:  # tiers start at their threshold
            return percent
    return 0


class Cart:
    def total(self, quantity: int) -> int:
        return quantity * 2 - 1
'''
FILES = {"shop/pricing.py": PRICING}


def ranked(*lines: tuple[int, float]) -> list[SuspiciousLine]:
    return [SuspiciousLine(file="shop/pricing.py", line=line, score=score) for line, score in lines]


def test_a_slot_starts_the_reply_up_to_the_line_and_keeps_the_rest() -> None:
    [slot] = line_slots(ranked((8, 0.9)), FILES, scope=None, limit=3)
    assert (slot.function, slot.original) == ("bulk_discount", "if quantity > threshold:  # tiers start at their threshold")
    assert slot.before.endswith("    for threshold, percent in ((100, 25), (10, 10)):\n\n        # the next line was "
                                "`if quantity > threshold:  # tiers start at their threshold`, which is wrong; corrected:\n        ")
    assert slot.before.startswith("```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n")
    reply = slot.reply(slot.before + "if quantity >= threshold:\n    this line is never read")
    edit = apply_reply(FILES, reply)
    diff = unified_diff(FILES, edit.files)
    assert diff.changed_lines == 2  # one line removed, one added
    assert "-        if quantity > threshold:  # tiers start at their threshold\n+        if quantity >= threshold:\n" in diff.text


def test_a_reply_without_its_prefill_is_the_line_alone() -> None:
    [slot] = line_slots(ranked((9, 0.5)), FILES, scope=None, limit=1)
    edit = apply_reply(FILES, slot.reply("return percent + 0"))
    assert "            return percent + 0\n" in edit.files["shop/pricing.py"]


def test_a_method_slot_names_its_class() -> None:
    [slot] = line_slots(ranked((15, 0.5)), FILES, scope=None, limit=1)
    assert slot.function == "Cart.total"
    assert slot.head.endswith("class Cart:\n    def total(self, quantity: int) -> int:\n")
    assert slot.before.endswith("corrected:\n        ")
    edit = apply_reply(FILES, slot.reply("return quantity * 2"))
    assert unified_diff(FILES, edit.files).changed_lines == 2


def test_slots_skip_what_is_no_statement_of_a_function_in_scope() -> None:
    lines = ranked((1, 1.0), (4, 1.0), (5, 1.0), (7, 1.0), (10, 0.8), (15, 0.7), (8, 0.6))
    slots = line_slots(lines, FILES, scope={("shop/pricing.py", "bulk_discount")}, limit=5)
    # the module docstring, the def line, the function's docstring, a blank line and a method out of scope
    assert [s.line for s in slots] == [10, 8]
    assert [s.line for s in line_slots(lines, FILES, scope=None, limit=1)] == [10]


def test_a_def_line_with_defaults_on_it_is_a_slot() -> None:
    files = {"m.py": "def page(items, size=11):\n    return items[:size]\n\n\ndef wide(\n    items, size=11,\n):\n    return items\n"}
    [slot] = line_slots([SuspiciousLine(file="m.py", line=n, score=1.0) for n in (1, 5, 6)], files, scope=None, limit=3)
    assert (slot.line, slot.original, slot.head) == (1, "def page(items, size=11):", "```python\n# m.py\n")
    edit = apply_reply(files, slot.reply("def page(items, size=10):"))
    assert edit.files["m.py"].startswith("def page(items, size=10):\n    return items[:size]\n")


def test_the_functions_named_first_go_first() -> None:
    lines = ranked((15, 0.9), (10, 0.5), (8, 0.4))
    assert [s.line for s in line_slots(lines, FILES, scope=None, limit=2)] == [15, 10]
    first = functions_first(lines, FILES, {("shop/pricing.py", "bulk_discount")})
    assert [e["line"] for e in first] == [10, 8, 15]


def test_a_line_written_as_a_comment_counts_as_its_code() -> None:
    [slot] = line_slots(ranked((9, 0.5)), FILES, scope=None, limit=1)
    edit = apply_reply(FILES, slot.reply(slot.before + "# return percent * 2"))
    assert "            return percent * 2\n" in edit.files["shop/pricing.py"]
    edit = apply_reply(FILES, slot.reply(slot.before + "  return percent * 3"))  # the model's own indent
    assert "\n            return percent * 3\n" in edit.files["shop/pricing.py"]
