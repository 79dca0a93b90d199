"""Turning the user's tests into a pytest module, and refusing tests that cannot work."""

from __future__ import annotations

import ast
import functools

from codeheal.errors import InputError

PRELUDE = (
    'globals().update({k: v for k, v in vars(__import__("solution")).items() if not k.startswith("__")})'
    "  # every name of the candidate, _private ones too (added by codeheal)\n"
)
PRELUDE_LINES = 1
TEST_MODULE = "test_solution.py"


@functools.lru_cache(maxsize=64)
def parse_tests(tests: str) -> ast.Module:
    """Parse the tests, or raise InputError naming the offending line. Parsed once per text:
    every candidate of a run is judged against the same tests (callers only read the tree)."""
    try:
        return ast.parse(tests, filename="tests.py")
    except SyntaxError as exc:
        line = (exc.text or "").rstrip("\n")
        caret = " " * max((exc.offset or 1) - 1, 0) + "^"
        raise InputError(f"tests.py line {exc.lineno}: {exc.msg}\n    {line}\n    {caret}") from None


def count_checks(module: ast.Module) -> int:
    """Test functions plus plain top-level asserts."""
    return sum(1 for node in module.body if _is_test_function(node) or isinstance(node, ast.Assert))


def check_names(module: ast.Module) -> frozenset[str]:
    """The names the tests' checks have in the generated module: test functions and classes,
    and `test_line_N` for each plain top-level assert build_test_module wraps."""
    names = set()
    for index, node in enumerate(module.body):
        if _is_test_function(node):
            names.add(node.name)
        elif isinstance(node, ast.Assert) and _alone_on_its_lines(module.body, index):
            names.add(f"test_line_{node.lineno}")
    return frozenset(names)


def calls_name(module: ast.Module, name: str) -> bool:
    """Whether the tests refer to `name` at all (a call, an import, an attribute)."""
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id == name:
            return True
        if isinstance(node, ast.Attribute) and node.attr == name:
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name).split(".")[-1] == name:
            return True
    return False


def build_test_module(tests: str) -> str:
    """The tests as test_solution.py: the candidate's names in scope, and each plain
    top-level assert wrapped in its own test function so it counts as its own check.

    Other top-level statements stay at module level, so names they bind are visible
    to the wrapped asserts (as module globals, after the whole module has run). Line N
    of the tests is line N + PRELUDE_LINES of the module."""
    module = parse_tests(tests)
    lines = tests.splitlines()
    out: list[str] = []
    cursor = 0
    body = module.body
    for index, node in enumerate(body):
        if not isinstance(node, ast.Assert) or not _alone_on_its_lines(body, index):
            continue
        start, end = node.lineno - 1, node.end_lineno or node.lineno
        out.extend(lines[cursor:start])
        # On the assert's own line, so every line keeps its number (a multi-line assert
        # continues inside brackets or after a backslash, where indentation is free).
        out.append(f"def test_line_{node.lineno}(): {lines[start]}")
        out.extend(lines[start + 1:end])
        cursor = end
    out.extend(lines[cursor:])
    return PRELUDE + "\n".join(out) + "\n"


def _alone_on_its_lines(body: list[ast.stmt], index: int) -> bool:
    node = body[index]
    if node.col_offset != 0:
        return False
    if index > 0 and (body[index - 1].end_lineno or 0) >= node.lineno:
        return False
    return index + 1 == len(body) or body[index + 1].lineno > (node.end_lineno or node.lineno)


def _is_test_function(node: ast.stmt) -> bool:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name.startswith("test")
    if isinstance(node, ast.ClassDef):
        return node.name.startswith("Test")
    return False
