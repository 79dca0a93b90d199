"""A pass the tests did not see through is no pass (evaluation/hollow.py): a function the tests
name that does nothing, or a name the code never defines on a line the tests did not reach.
Judged for real in the sandbox; the loop heals through the feedback it gives."""

from __future__ import annotations

import asyncio

import pytest
from doubles import ScriptedModel, fenced

from codeheal import Context, build_graph, evaluate
from codeheal.rules import failure_kind
from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.problems import load_problems

WEAK = "assert callable(pluck)\n"
ONE = "assert ceil_div(7, 2) == 4\n"


@pytest.mark.parametrize("body", [
    "pass", "...", '"""Pluck the smallest even value."""', "raise NotImplementedError",
    'raise NotImplementedError("later")', '"""Doc."""\n    pass',
])
def test_a_function_the_tests_name_that_does_nothing_is_no_pass(body: str) -> None:
    feedback = evaluate(f"def pluck(arr):\n    {body}\n", WEAK)
    assert not feedback["passed"] and feedback["passed_count"] == feedback["total"] == 1
    (failure,) = feedback["failures"]
    assert failure["exception"] == "Stub" and "`pluck` does nothing" in failure["message"]
    assert failure_kind(feedback) == "crash"  # informative: the policies show it


def test_the_entry_point_counts_though_the_tests_only_reach_it_through_another_name() -> None:
    code = "def pluck(arr):\n    pass\n\nPLUCK = pluck\n"
    assert not evaluate(code, "assert callable(PLUCK)\n", entry_point="pluck")["passed"]


def test_stubs_the_tests_do_not_name_and_functions_that_do_something_pass() -> None:
    code = ("def pluck(arr):\n    return [min(arr)] if arr else []\n\n"
            "def later():\n    pass\n\nclass Base:\n    def hook(self):\n        pass\n")
    assert evaluate(code, WEAK)["passed"]
    assert evaluate("def pluck(arr):\n    return None\n", WEAK)["passed"]  # returns, not a stub


@pytest.mark.parametrize("code", [
    "def ceil_div(a, b):\n    if a % b:\n        return math.ceil(a / b)\n    return a // b\n",
    "def ceil_div(a, b):\n    try:\n        return -(-a // b)\n    except ZeroDivisionError:\n        raise Oops()\n",
    "def ceil_div(a, b):\n    return -(-a // b) if b else helper(a)\n",
])
def test_a_name_never_defined_on_a_line_the_tests_did_not_reach_is_no_pass(code: str) -> None:
    feedback = evaluate(code, ONE)
    assert not feedback["passed"] and feedback["failures"][0]["exception"] == "NameError"
    assert "is not defined" in feedback["failures"][0]["message"] and failure_kind(feedback) == "name"


@pytest.mark.parametrize("code", [
    "import math\n\ndef ceil_div(a, b):\n    return math.ceil(a / b)\n",
    "from math import *\n\ndef ceil_div(a, b):\n    return ceil(a / b)\n",  # a star import may define it
    "def ceil_div(a, b):\n    return _impl(a, b)\n\ndef _impl(a, b):\n    return -(-a // b)\n",
    "def ceil_div(a, b):\n    global CACHE\n    CACHE = {}\n    return -(-a // b)\n",
    # names only annotations use raise nothing: postponed, written as a string, on a local
    "from __future__ import annotations\n\ndef ceil_div(a: Num, b: Num) -> Num:\n    return -(-a // b)\n",
    'def ceil_div(a: "Num", b):\n    result: Num = -(-a // b)\n    return result\n',
])
def test_names_defined_anywhere_imported_or_maybe_starred_pass(code: str) -> None:
    assert evaluate(code, ONE)["passed"]


def test_the_loop_heals_a_stub_that_passed_weak_tests_through_the_feedback() -> None:
    real = "def pluck(arr):\n    evens = [v for v in arr if v % 2 == 0]\n    return [min(evens), arr.index(min(evens))] if evens else []\n"
    model = ScriptedModel(messages=iter([fenced("def pluck(arr):\n    pass\n"), fenced(real)]))
    result = build_graph(llm=model).compile().invoke(
        {"task": "Pluck the smallest even value and its index.", "tests": WEAK},
        context=Context(policy="raw_error", max_attempts=3))
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert "does nothing" in model.prompt(1) and "Write its body" in model.prompt(1)


def test_with_the_hollow_check_off_the_tests_alone_decide_as_a_benchmarks_harness_scores() -> None:
    untaken = "def ceil_div(a, b):\n    if a % b:\n        return -(-a // b)\n    return math.floor(a / b)\n"
    assert evaluate(untaken, ONE, hollow_check=False)["passed"] and not evaluate(untaken, ONE)["passed"]
    problem = next(p for p in load_problems() if p.task_id == "HumanEval/2")
    right = "def truncate_number(number):\n    if number < 0:\n        raise Invalid(number)\n    return number % 1.0\n"
    assert asyncio.run(hidden_verdict(problem, right)).passed  # the official check alone scores
