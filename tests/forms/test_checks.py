"""Turning the user's tests into test_solution.py."""

from __future__ import annotations

import ast

import pytest

from codeheal.errors import InputError
from codeheal.evaluation.checks import (
    prelude,
    build_test_module,
    calls_name,
    count_checks,
    parse_tests,
)


def function_names(module: str) -> list[str]:
    return [n.name for n in ast.parse(module).body if isinstance(n, ast.FunctionDef)]


def test_each_top_level_assert_becomes_its_own_test_named_by_its_line():
    module = build_test_module("assert add(1, 2) == 3\n\nassert add(0, 0) == 0\n")
    assert module.startswith(prelude())
    assert function_names(module) == ["test_line_1", "test_line_3"]


def test_multi_line_assert_is_wrapped_whole():
    tests = "assert add(\n    1,\n    2,\n) == 3\n"
    module = build_test_module(tests)
    assert function_names(module) == ["test_line_1"]
    assert "def test_line_1(): assert add(\n    1,\n    2,\n) == 3" in module
    # every line of the tests keeps its number, after the one-line prelude
    assert module.splitlines()[1:] == ["def test_line_1(): " + tests.splitlines()[0], *tests.splitlines()[1:]]


def test_setup_statements_stay_at_module_level_and_test_functions_untouched():
    tests = (
        "import math\n"
        "CASES = [(1, 2), (3, 4)]\n"
        "assert all(add(a, b) == a + b for a, b in CASES)\n"
        "def test_pi():\n"
        "    assert add(math.pi, 0) == math.pi\n"
    )
    module = build_test_module(tests)
    tree = ast.parse(module)
    assert [type(n).__name__ for n in tree.body] == [
        "Expr", "Import", "Assign", "FunctionDef", "FunctionDef",
    ]
    assert function_names(module) == ["test_line_3", "test_pi"]


def test_assert_sharing_a_line_is_left_alone():
    module = build_test_module("x = 1; assert x == 1\nassert True\n")
    assert function_names(module) == ["test_line_2"]
    assert "x = 1; assert x == 1" in module


def test_count_checks_counts_test_functions_classes_and_top_level_asserts():
    tests = (
        "def helper():\n    assert True\n"
        "def test_a():\n    pass\n"
        "async def test_b():\n    pass\n"
        "class TestC:\n    def test_c(self):\n        pass\n"
        "assert 1\n"
    )
    assert count_checks(parse_tests(tests)) == 4


def test_calls_name_sees_calls_imports_and_attributes():
    assert calls_name(parse_tests("assert add(1, 2) == 3"), "add")
    assert calls_name(parse_tests("from solution import add as plus\nassert plus(1, 1) == 2"), "plus")
    assert calls_name(parse_tests("from solution import add\nassert True"), "add")
    assert calls_name(parse_tests("import solution\nassert solution.add(1, 1) == 2"), "add")
    assert not calls_name(parse_tests("assert sub(1, 1) == 0"), "add")


def test_parse_tests_names_the_line_with_a_caret():
    with pytest.raises(InputError) as caught:
        parse_tests("assert add(1, 2) == 3\nassert add(1,, 2) == 3\n")
    message = str(caught.value)
    assert message.startswith("tests.py line 2:")
    assert "assert add(1,, 2) == 3" in message
    assert "^" in message


def test_the_prelude_names_the_entry_point_and_refuses_one_that_is_not_a_name():
    assert "candidate(__file__), 'sum'))" in build_test_module("assert sum([1]) == 1\n", entry_point="sum")
    with pytest.raises(InputError, match="not a Python identifier"):
        prelude("sum')); import os; ('")
