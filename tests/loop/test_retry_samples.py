"""Retries: several candidates per retry (Policy.retry_samples), the best one kept; and
what the retry prompt shows (Policy.show_failed_code)."""

from __future__ import annotations

import asyncio

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, CountingSandbox, fenced, scripted

from codeheal import Context, build_graph
from codeheal.context import Policy
from codeheal.errors import ConfigError
from codeheal.forms.module.form import ModuleForm
from codeheal.nodes.prepare_candidates import to_test
from codeheal.state import State

TWO_OF_THREE = "def add(a, b):\n    return a + b if a >= 0 else 99\n"


def run(model, sandbox, **context):
    app = build_graph(llm=model, sandbox=sandbox).compile()
    return app.invoke({"task": "Add two numbers.", "tests": ADD_TESTS}, context=Context(**context))


def test_a_retry_writes_several_candidates_and_keeps_the_one_that_passes(sandbox):
    model = scripted(
        fenced(BAD_ADD), "add subtracts.",
        fenced(BAD_ADD), fenced(TWO_OF_THREE), fenced(GOOD_ADD),
    )
    result = run(model, sandbox, policy=Policy.preset("self_heal", retry_samples=3))
    assert result["status"] == "passed"
    assert result["attempts"] == 2
    assert result["code"].strip() == GOOD_ADD.strip()
    assert len(model.calls) == 5  # actor, reflector, three samples
    assert model.prompt(2) == model.prompt(3) == model.prompt(4)  # one prompt, sampled three times
    # the copy of the failed attempt 1 is not run again; the two new ones are
    assert len(sandbox.jobs) == 3
    assert result["history"][1]["candidates_tested"] == 2


def test_the_first_attempt_is_one_sample_and_a_failed_retry_keeps_the_best_candidate(sandbox):
    model = scripted(
        fenced(BAD_ADD), "lesson",
        fenced("def add(a, b):\n    return 42\n"), fenced(TWO_OF_THREE),
    )
    result = run(model, sandbox, policy=Policy.preset("self_heal", retry_samples=2), max_attempts=2)
    assert result["status"] == "failed"
    assert [h["passed_count"] for h in result["history"]] == [1, 2]
    assert result["history"][1]["code"].strip() == TWO_OF_THREE.strip()
    assert result["code"].strip() == TWO_OF_THREE.strip()


def test_async_runs_choose_the_same_way():
    model = scripted(fenced(BAD_ADD), "lesson", fenced(TWO_OF_THREE), fenced(GOOD_ADD))
    app = build_graph(llm=model, sandbox=CountingSandbox()).compile()
    result = asyncio.run(app.ainvoke(
        {"task": "Add two numbers.", "tests": ADD_TESTS}, context=Context(policy=Policy.preset("self_heal", retry_samples=2))
    ))
    assert result["status"] == "passed" and result["attempts"] == 2


def test_candidates_to_test_drops_repeats_and_code_that_already_failed():
    old, a, b = "x = 0\n", "x = 1\n", "x = 2\n"
    key = {code: ModuleForm().prepare(State(), code)["key"] for code in (old, a, b, "")}
    run = State(form="module", tried=[{"key": key[old], "summary": "failed"}])

    def prepared(code: str, index: int, copies: int = 1) -> dict:
        return {"key": key[code], "size": 0, "index": index, "code": code, "copies": copies}

    assert to_test(run, [old, a, "x=1  # again\n", b]) == [
        prepared(a, 0, copies=2), prepared(b, 1)]  # the same syntax tree is one candidate: the first drawn
    assert to_test(run, [old, old]) == [prepared(old, 0, copies=2)]
    assert to_test(State(form="module"), []) == [prepared("", 0)]
    assert ModuleForm().prepare(State(), "def broken(:\n") == {"key": "def broken(:\n", "size": 0}  # no tree: by its text


def test_retry_samples_must_be_a_positive_integer():
    with pytest.raises(ConfigError, match="retry_samples must be an integer >= 1, got 0"):
        Context(policy=Policy.preset("self_heal", retry_samples=0))


def test_by_default_a_retry_sees_the_failed_checks_and_lesson_but_not_the_failed_code(sandbox):
    model = scripted(fenced(BAD_ADD), "add subtracts; it must return a + b.", fenced(GOOD_ADD))
    assert run(model, sandbox)["status"] == "passed"
    retry_prompt = model.prompt(2)
    assert "add subtracts; it must return a + b." in retry_prompt
    assert "Your previous attempt failed these checks:\n1 of 3 checks passed." in retry_prompt
    assert "return a - b" not in retry_prompt and "do not repeat it" not in retry_prompt
