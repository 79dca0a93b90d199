"""The module form's request checked as text alone (task, tests, entry point): light enough
that `codeheal solve` refuses bad input before it imports the graph and the model."""

from __future__ import annotations

import ast

from codeheal.errors import InputError
from codeheal.evaluation.checks import calls_name, count_checks, parse_tests

MAX_TESTS_BYTES = 256 * 1024
"""The most a module-form run's tests may hold: they go into every prompt whole."""


def check_request(task: object, tests: object, entry_point: object) -> ast.Module:
    """Raise InputError for a task, tests or entry point no model call could fix; the parsed tests."""
    if not isinstance(task, str) or not task.strip():
        raise InputError("the task is empty: describe what the code should do")
    if not isinstance(tests, str) or not tests.strip():
        raise InputError("the tests are empty: give pytest-style test_* functions or plain asserts")
    check_tests_size(tests)
    module = parse_tests(tests)
    if count_checks(module) == 0:
        raise InputError("the tests contain no checks: add test_* functions, Test* or unittest.TestCase classes, or top-level asserts")
    if entry_point:
        if not isinstance(entry_point, str) or not entry_point.isidentifier():
            raise InputError(f"entry_point {entry_point!r} is not a Python identifier")
        if not calls_name(module, entry_point):
            raise InputError(f"entry_point {entry_point!r} is never used by the tests")
    return module


def check_tests_size(tests: str) -> None:
    """InputError for tests over MAX_TESTS_BYTES (they would be sent whole to the model)."""
    size = len(tests.encode("utf-8", "surrogatepass"))
    if size > MAX_TESTS_BYTES:
        raise InputError(
            f"the tests hold {size:,} bytes, over the cap of {MAX_TESTS_BYTES:,}: they go into every prompt "
            "whole; give the tests of this one task"
        )
