"""`codeheal.evaluate` / `codeheal.aevaluate`: the module form's judgement of one piece of code
as a library call, the same Feedback the loop's evaluator gives, with no model."""

from __future__ import annotations

import asyncio

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, scripted

import codeheal
from codeheal import Context, aevaluate, build_graph, evaluate
from codeheal.errors import InputError
from codeheal.evaluation.feedback import summarize


def test_right_code_passes_every_check_and_wrong_code_fails_the_ones_it_gets_wrong() -> None:
    right = evaluate(GOOD_ADD, ADD_TESTS)
    assert (right["passed"], right["passed_count"], right["total"]) == (True, 3, 3)
    wrong = asyncio.run(aevaluate(BAD_ADD, ADD_TESTS))
    assert (wrong["passed"], wrong["passed_count"], wrong["total"]) == (False, 1, 3)
    assert {f["test"] for f in wrong["failures"]} == {"test_line_1", "test_line_2"}


def test_it_is_the_feedback_the_loop_gives() -> None:
    result = build_graph(llm=scripted()).compile().invoke(
        {"task": "Add two numbers.", "tests": ADD_TESTS, "starting_code": BAD_ADD}, context=Context(max_attempts=1))
    feedback = evaluate(BAD_ADD, ADD_TESTS, context=Context(timeout_s=10))
    assert result["history"][0]["summary"] == summarize(feedback)
    assert result["history"][0]["passed_count"] == feedback["passed_count"] == 1


def test_no_code_a_syntax_error_and_tampering_fail_without_running() -> None:
    assert not evaluate("", ADD_TESTS)["passed"]
    assert evaluate("def add(a, b) return a + b\n", ADD_TESTS)["failures"][0]["test"] == "<compile>"
    tampering = "import sys\ndef add(a, b):\n    return a + b\nsys.exit(0)\n"
    refused = evaluate(tampering, ADD_TESTS)
    assert not refused["passed"] and "harness tampering" in refused["error"]


def test_tests_that_do_not_parse_are_bad_input() -> None:
    with pytest.raises(InputError, match="tests.py line 1"):
        evaluate(GOOD_ADD, "assert add(2, 3) ==\n")


def test_it_is_public() -> None:
    assert {"evaluate", "aevaluate", "Feedback"} <= set(codeheal.__all__)
