"""One-type-error projects: type errors seeded by rule into the typed functions of three small
typed projects whose tests pass and which mypy finds clean, for `codeheal fix --check` to heal
(codeheal_bench/scripts/type_heals.py).

The rule: for each kind below, each project's functions in the order written, the first and
the last function the kind applies to get the error. `conversion`: the function's last
statement, a one-line `return VALUE` under `-> int`, `float` or `bool`, returns `str(VALUE)`
(under `-> str`, `len(VALUE)`): the tests fail too. `annotation`: the return annotation `int`,
`float` or `bool` becomes `str` (`str` becomes `int`): the tests still pass. `optional`: the
first parameter annotated `str` whose attribute the function reads is annotated `str | None`:
the tests still pass. A case counts when mypy reports an error on it (the run records one it
does not as `clean`). Nothing is chosen by hand.

The split, fixed before any run: SHOP's cases are the tuning set, WORDS' and GEOMETRY's the
report set."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

SHOP = {
    "shop/__init__.py": "",
    "shop/prices.py": '''"""Prices of the items in a cart."""

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int


def line_total(item: Item) -> float:
    return item.price * item.quantity


def item_count(items: list[Item]) -> int:
    return sum(item.quantity for item in items)


def label(name: str, quantity: int) -> str:
    return f"{quantity} x {name.title()}"


def is_bulk(item: Item, threshold: int = 10) -> bool:
    return item.quantity >= threshold


def discount(total: float, code: str) -> float:
    if code.upper() == "HALF":
        return total / 2
    return total
''',
    "tests/test_prices.py": '''from shop.prices import Item, discount, is_bulk, item_count, label, line_total

PEN = Item("pen", 1.5, 4)


def test_line_total():
    assert line_total(PEN) == 6.0


def test_item_count():
    assert item_count([PEN, Item("ink", 3.0, 2)]) == 6


def test_label():
    assert label("blue pen", 2) == "2 x Blue Pen"


def test_is_bulk():
    assert not is_bulk(PEN)
    assert is_bulk(PEN, 4)


def test_discount():
    assert discount(10.0, "half") == 5.0
    assert discount(10.0, "none") == 10.0
''',
}
WORDS = {
    "words/__init__.py": "",
    "words/text.py": '''"""Words in text."""


def tokens(text: str) -> list[str]:
    return text.lower().split()


def longest(text: str) -> str:
    return max(tokens(text), key=len, default="")


def word_count(text: str) -> int:
    return len(tokens(text))


def average_length(text: str) -> float:
    words = tokens(text)
    return sum(len(word) for word in words) / max(len(words), 1)


def has_word(text: str, word: str) -> bool:
    return word.lower() in tokens(text)


def initials(text: str) -> str:
    return "".join(word[0] for word in tokens(text)).upper()
''',
    "tests/test_text.py": '''from words.text import average_length, has_word, initials, longest, tokens, word_count


def test_tokens():
    assert tokens("A b  C") == ["a", "b", "c"]


def test_longest():
    assert longest("a bbb cc") == "bbb"
    assert longest("") == ""


def test_word_count():
    assert word_count("one two three") == 3


def test_average_length():
    assert average_length("ab abcd") == 3.0
    assert average_length("") == 0.0


def test_has_word():
    assert has_word("Red fox", "FOX")
    assert not has_word("Red fox", "dog")


def test_initials():
    assert initials("portable network graphics") == "PNG"
''',
}
GEOMETRY = {
    "geometry/__init__.py": "",
    "geometry/shapes.py": '''"""Rectangles and points."""

import math


def distance(x1: float, y1: float, x2: float, y2: float) -> float:
    return math.hypot(x2 - x1, y2 - y1)


def area(width: float, height: float) -> float:
    return width * height


def grid_cells(columns: int, rows: int) -> int:
    return columns * rows


def describe(width: float, height: float) -> str:
    return f"{width:g} x {height:g}"


def is_square(width: float, height: float) -> bool:
    return math.isclose(width, height)


def banner(title: str, width: int) -> str:
    return title.strip().center(width, "-")
''',
    "tests/test_shapes.py": '''from geometry.shapes import area, banner, describe, distance, grid_cells, is_square


def test_distance():
    assert distance(0, 0, 3, 4) == 5.0


def test_area():
    assert area(2.5, 4) == 10.0


def test_grid_cells():
    assert grid_cells(3, 4) == 12


def test_describe():
    assert describe(2.5, 4) == "2.5 x 4"


def test_is_square():
    assert is_square(2, 2.0)
    assert not is_square(2, 3)


def test_banner():
    assert banner(" hi ", 6) == "--hi--"
''',
}
PROJECTS = {"shop": SHOP, "words": WORDS, "geometry": GEOMETRY}
TUNING = ("shop",)
"""The tuning set's projects; the others' cases are the report set."""
TEST_COMMAND = "python -m pytest -q"
SCALARS = {"int", "float", "bool"}


@dataclass(frozen=True)
class TypeCase:
    """One project with one seeded type error."""

    name: str
    kind: str
    project: str
    split: str
    """"tuning" or "report"."""
    files: dict[str, str]
    file: str
    right: str
    """The module as it was before the error."""

    @property
    def check_command(self) -> str:
        return f"python -m mypy {self.project}"


Seeder = Callable[[str, ast.FunctionDef], str | None]
"""A kind's seeding of one function of a module's source: the new source, or None where the
kind does not apply."""


def _conversion(source: str, node: ast.FunctionDef) -> str | None:
    last = node.body[-1]
    returns = ast.unparse(node.returns) if node.returns else ""
    if not isinstance(last, ast.Return) or last.value is None or last.lineno != last.end_lineno \
            or returns not in SCALARS | {"str"}:
        return None
    lines = source.splitlines()
    text = lines[last.lineno - 1]
    value = text.strip().removeprefix("return ")
    wrapper = "len" if returns == "str" else "str"
    lines[last.lineno - 1] = text.replace(f"return {value}", f"return {wrapper}({value})")
    return "\n".join(lines) + "\n"


def _annotation(source: str, node: ast.FunctionDef) -> str | None:
    returns = ast.unparse(node.returns) if node.returns else ""
    if returns not in SCALARS | {"str"}:
        return None
    lines = source.splitlines()
    wrong = "int" if returns == "str" else "str"
    text = lines[node.lineno - 1]
    changed = re.sub(rf"->\s*{returns}\s*:", f"-> {wrong}:", text, count=1)
    if changed == text:
        return None
    lines[node.lineno - 1] = changed
    return "\n".join(lines) + "\n"


def _optional(source: str, node: ast.FunctionDef) -> str | None:
    read = {n.value.id for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
    for argument in node.args.args:
        if argument.annotation is not None and ast.unparse(argument.annotation) == "str" and argument.arg in read:
            lines = source.splitlines()
            text = lines[node.lineno - 1]
            changed = text.replace(f"{argument.arg}: str", f"{argument.arg}: str | None", 1)
            lines[node.lineno - 1] = changed
            return "\n".join(lines) + "\n"
    return None


KINDS: dict[str, Seeder] = {"conversion": _conversion, "annotation": _annotation, "optional": _optional}


def type_cases() -> Iterator[TypeCase]:
    """Every case the rule draws, project by project, kind by kind."""
    for project, files in PROJECTS.items():
        for path, source in files.items():
            if path.startswith("tests/") or not source:
                continue
            functions = [n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
            for kind, seed in KINDS.items():
                seeded = [(node.name, text) for node in functions if (text := seed(source, node)) is not None]
                for function, text in dict.fromkeys([seeded[0], seeded[-1]]) if seeded else []:
                    yield TypeCase(name=f"{project}-{kind}-{function}", kind=kind, project=project,
                                   split="tuning" if project in TUNING else "report",
                                   files={**files, path: text}, file=path, right=source)
