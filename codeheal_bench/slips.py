"""One-slip projects: syntax and collection errors drawn by rule from three small projects whose
tests pass, for `codeheal fix` to heal (codeheal_bench/scripts/slip_heals.py).

The rule: for each kind of slip below (each a kind of message Python's parser, or the import
system, gives), each module of each project, the first and the last line the kind applies to
get the slip; a case is kept when the module then fails as its kind says (its parser's message
matches the kind's; an import slip's module still parses). Nothing is chosen by hand."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

CALC = {
    "calc/__init__.py": "",
    "calc/ops.py": '''"""Small arithmetic."""

from calc.util import clamp, safe_div


def total(items, cap=100):
    """Sum of the non-zero items, capped."""
    result = 0
    for item in items:
        if item == 0:
            continue
        result += item
    return clamp(result, 0, cap)


def mean(items):
    values = [float(v) for v in items]
    return safe_div(sum(values), len(values))


def span(items):
    ordered = sorted(items)
    while ordered and ordered[0] == ordered[-1]:
        return 0
    return ordered[-1] - ordered[0]
''',
    "calc/util.py": '''def clamp(value, low, high):
    if value < low:
        return low
    return min(value, high)


def safe_div(top, bottom):
    if bottom == 0:
        return 0.0
    return top / bottom
''',
    "tests/test_calc.py": '''from calc.ops import mean, span, total


def test_total():
    assert total([1, 2, 0, 3]) == 6
    assert total([80, 80]) == 100


def test_mean():
    assert mean([1, 2, 3]) == 2.0
    assert mean([]) == 0.0


def test_span():
    assert span([3, 9, 4]) == 6
    assert span([5, 5]) == 0
''',
}
WORDS = {
    "words/__init__.py": "",
    "words/text.py": '''"""Words in text."""

from words.counting import counts


def tokens(text):
    """The lowercase words of `text`."""
    cleaned = text.replace(",", " ").replace(".", " ")
    return [word.lower() for word in cleaned.split()]


def top(text, n=2):
    ranked = sorted(counts(tokens(text)).items(), key=lambda pair: (-pair[1], pair[0]))
    return [word for word, _ in ranked[:n]]


def title(text):
    parts = []
    for word in text.split(" "):
        if word:
            parts.append(word[0].upper() + word[1:])
    return " ".join(parts)
''',
    "words/counting.py": '''def counts(words):
    found = {}
    for word in words:
        found[word] = found.get(word, 0) + 1
    return found


def longest(words):
    best = ""
    for word in words:
        if len(word) > len(best):
            best = word
    return best
''',
    "tests/test_words.py": '''from words.counting import longest
from words.text import title, tokens, top


def test_tokens():
    assert tokens("A cat, a dog.") == ["a", "cat", "a", "dog"]


def test_top():
    assert top("b a b c a b") == ["b", "a"]


def test_title():
    assert title("hello  big world") == "Hello Big World"


def test_longest():
    assert longest(["ab", "abc", "x"]) == "abc"
''',
}
STOCK = {
    "stock/__init__.py": "",
    "stock/shelf.py": '''"""A shelf of items."""

from stock.prices import price_of


class Shelf:
    def __init__(self):
        self.items = {}

    def add(self, name, count=1):
        if count <= 0:
            raise ValueError("count must be positive")
        self.items[name] = self.items.get(name, 0) + count

    def take(self, name):
        left = self.items.get(name, 0)
        if left == 0:
            return False
        self.items[name] = left - 1
        return True

    def value(self):
        return sum(price_of(name) * count for name, count in self.items.items())
''',
    "stock/prices.py": '''PRICES = {"apple": 3, "pear": 4}


def price_of(name):
    try:
        return PRICES[name]
    except KeyError:
        return 0
''',
    "tests/test_shelf.py": '''import pytest

from stock.shelf import Shelf


def test_add_and_take():
    shelf = Shelf()
    shelf.add("apple", 2)
    assert shelf.take("apple") and shelf.take("apple")
    assert not shelf.take("apple")


def test_bad_count():
    with pytest.raises(ValueError):
        Shelf().add("pear", 0)


def test_value():
    shelf = Shelf()
    shelf.add("apple", 2)
    shelf.add("pear")
    shelf.add("plum")
    assert shelf.value() == 10
''',
}
PROJECTS = {"calc": CALC, "words": WORDS, "stock": STOCK}
TEST_COMMAND = "python -m pytest -q"


@dataclass(frozen=True)
class Kind:
    """A kind of slip: the message it gives, and the edit of a line that makes it (None where
    the line does not take it)."""

    name: str
    message: str
    """A pattern of the parser's message (empty: the module still parses, the import fails)."""
    slip: Callable[[list[str], int], str | None]


@dataclass(frozen=True)
class SlipCase:
    """One project with one slip."""

    name: str
    project: str
    kind: str
    file: str
    line: int
    files: dict[str, str]
    right: str
    """The module as it was, before the slip."""


def _header_colon(lines: list[str], at: int) -> str | None:
    line = lines[at]
    if re.match(r"\s*(def|if|elif|else|for|while|class|try|except|with)\b.*:$", line):
        return line[:-1]
    return None


def _drop_last(char: str) -> Callable[[list[str], int], str | None]:
    def slip(lines: list[str], at: int) -> str | None:
        line = lines[at]
        cut = line.rfind(char)
        return line[:cut] + line[cut + 1:] if cut > 0 and "(" in line else None
    return slip


def _doubled_paren(lines: list[str], at: int) -> str | None:
    line = lines[at]
    cut = line.find(")")
    return line[:cut] + ")" + line[cut:] if cut > 0 else None


def _mismatched(lines: list[str], at: int) -> str | None:
    line = lines[at]
    cut = line.rfind(")")
    return line[:cut] + "]" + line[cut + 1:] if cut > 0 else None


def _no_comma(lines: list[str], at: int) -> str | None:
    line = lines[at]
    if re.match(r"\s*(from|import|def)\b", line) or ", " not in line:
        return None
    return line.replace(", ", " ", 1)


def _assign_for_eq(lines: list[str], at: int) -> str | None:
    line = lines[at]
    return line.replace(" == ", " = ", 1) if re.match(r"\s*(if|elif|while)\b.* == ", line) else None


def _unexpected_indent(lines: list[str], at: int) -> str | None:
    line, before = lines[at], lines[at - 1] if at else ""
    if not line.strip() or not before.strip() or before.rstrip().endswith(":") or _indent(line) != _indent(before):
        return None
    return "    " + line


def _bad_unindent(lines: list[str], at: int) -> str | None:
    line, before = lines[at], lines[at - 1] if at else ""
    if not line.strip() or not before.strip() or not 0 < _indent(line) < _indent(before):
        return None
    return line[1:]


def _no_indented_block(lines: list[str], at: int) -> str | None:
    line, before = lines[at], lines[at - 1] if at else ""
    if not line.strip() or not before.rstrip().endswith(":") or _indent(line) <= _indent(before):
        return None
    return line[_indent(line) - _indent(before):]


def _misspelt_keyword(lines: list[str], at: int) -> str | None:
    line = lines[at]
    return line.replace("return ", "retrun ", 1) if re.match(r"\s*return \S", line) else None


def _open_string(lines: list[str], at: int) -> str | None:
    line = lines[at]
    match = re.search(r'"[^"\n]*"', line)
    return line[:match.end() - 1] + line[match.end():] if match and line.count('"') == 2 else None


def _misspelt_import(lines: list[str], at: int) -> str | None:
    line = lines[at]
    match = re.match(r"(from \S+ import )(\w+)(.*)$", line)
    if not match or len(match[2]) < 4:
        return None
    name = match[2]
    return f"{match[1]}{name[0]}{name[2]}{name[1]}{name[3:]}{match[3]}"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


KINDS = (
    Kind("missing-colon", r"expected ':'", _header_colon),
    Kind("unclosed-paren", r"was never closed", _drop_last(")")),
    Kind("stray-paren", r"unmatched '\)'", _doubled_paren),
    Kind("mismatched-bracket", r"does not match opening parenthesis", _mismatched),
    Kind("missing-comma", r"forgot a comma|invalid syntax", _no_comma),
    Kind("assign-for-eq", r"Maybe you meant '=='", _assign_for_eq),
    Kind("unexpected-indent", r"unexpected indent", _unexpected_indent),
    Kind("bad-unindent", r"unindent does not match", _bad_unindent),
    Kind("no-indented-block", r"expected an indented block", _no_indented_block),
    Kind("misspelt-keyword", r"invalid syntax", _misspelt_keyword),
    Kind("open-string", r"unterminated string literal", _open_string),
    Kind("misspelt-import", "", _misspelt_import),
)


def slip_cases() -> list[SlipCase]:
    """Every case the rule draws, in a fixed order (project, module, kind, first line then last)."""
    return list(_cases())


def _cases() -> Iterator[SlipCase]:
    for project, files in PROJECTS.items():
        for path, text in files.items():
            if path.startswith("tests/") or not text:
                continue
            lines = text.split("\n")
            for kind in KINDS:
                fits = [at for at in range(len(lines)) if kind.slip(lines, at) is not None]
                for at in dict.fromkeys(fits[:1] + fits[-1:]):
                    slipped = "\n".join([*lines[:at], kind.slip(lines, at) or "", *lines[at + 1:]])
                    if _fails_as(kind, slipped):
                        module = path.rsplit("/", 1)[-1].removesuffix(".py")
                        yield SlipCase(name=f"{project}-{module}-{kind.name}-{at + 1}", project=project,
                                       kind=kind.name, file=path, line=at + 1,
                                       files={**files, path: slipped}, right=text)


def _fails_as(kind: Kind, text: str) -> bool:
    try:
        compile(text, "<slip>", "exec", dont_inherit=True)
    except SyntaxError as error:
        return bool(kind.message) and re.search(kind.message, error.msg) is not None
    return not kind.message
