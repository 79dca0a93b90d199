"""The project functions tests executed, read from their line coverage (recorded when the
project as it is was tested): the functions on a failing test's path however the test reached
them (directly, through a helper in the test file, a fixture, conftest or a chain of calls),
which the repair's scope takes in; and the spans of each function, which tell the regression
check which tests ran a changed one (regression.py)."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping

from codeheal.forms.project.test_paths import is_test_file
from codeheal.syntax import parse_code


def executed_functions(
    coverage: Mapping[str, Mapping[str, Collection[int]]], tests: Collection[str], files: Mapping[str, str],
) -> dict[str, list[str]]:
    """Path -> the names of the project functions (not the tests') whose body one of `tests`
    executed (a `def` line runs at import, so it does not count). `coverage`: test node id ->
    workspace path -> the lines that test executed."""
    lines: dict[str, set[int]] = {}
    for test in tests:
        for path, numbers in coverage.get(test, {}).items():
            if path in files and not is_test_file(path):
                lines.setdefault(path, set()).update(numbers)
    found: dict[str, list[str]] = {}
    for path, numbers in sorted(lines.items()):
        names = sorted({name for name, first, last in function_spans(files[path])
                        if any(first <= n <= last for n in numbers)})
        if names:
            found[path] = names
    return found


def function_spans(text: str) -> list[tuple[str, int, int]]:
    """(name, first body line, last line) of each function and method of a module; none when
    it does not parse."""
    try:
        tree = parse_code(text)
    except SyntaxError:
        return []
    return [(node.name, node.body[0].lineno, node.end_lineno or node.body[-1].lineno)
            for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
