"""How runs end besides passing: a token budget that no allowed call can exceed, a stuck
conversation that gets one fresh start, and plain resampling that never shows feedback.
Also the feedback a failed import and a static check give."""

from __future__ import annotations

from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, ScriptedModel, fenced, rewritten
from langchain_core.messages import AIMessage

from codeheal import Context, build_graph
from codeheal.context import Policy

TASK = {"task": "Add two numbers.", "tests": ADD_TESTS}
FAILED_BEFORE = "Your previous attempt failed these checks"


def costly(text: str, prompt: int = 100, completion: int = 50) -> AIMessage:
    return AIMessage(text, usage_metadata={"input_tokens": prompt, "output_tokens": completion,
                                           "total_tokens": prompt + completion})


def run(model: ScriptedModel, **context) -> dict:
    return build_graph(llm=model).compile().invoke(TASK, context=Context(**context))


def test_a_run_ends_with_status_budget_before_a_call_that_might_not_fit():
    replies = [costly(fenced(BAD_ADD)), costly("It subtracts."), costly(fenced(GOOD_ADD))]
    model = ScriptedModel(messages=iter(replies))
    result = run(model, max_tokens=400, max_attempts=5)
    assert result["status"] == "budget"
    spent = sum(attempt["tokens"] for attempt in result["history"])
    assert 0 < spent <= 400
    assert len(model.calls) < len(replies)


def test_without_a_budget_the_same_run_heals():
    replies = [costly(fenced(BAD_ADD)), costly("It subtracts."), costly(fenced(GOOD_ADD))]
    assert run(ScriptedModel(messages=iter(replies)), max_attempts=5)["status"] == "passed"


def test_the_same_failure_twice_gets_a_fresh_start_then_status_stuck():
    model = ScriptedModel(messages=iter([
        fenced(BAD_ADD), "It subtracts.", fenced(rewritten(BAD_ADD)), fenced(rewritten(BAD_ADD, 2)),
    ]))
    result = run(model, max_attempts=5)
    assert (result["status"], result["attempts"]) == ("stuck", 3)
    assert [a.get("fresh_start", False) for a in result["history"]] == [False, False, True]
    assert len(model.calls) == 4  # actor, reflector, actor, actor (no reflection on a stuck failure)
    assert FAILED_BEFORE in model.prompt(2) and FAILED_BEFORE not in model.prompt(3)
    assert "It subtracts." not in model.prompt(3)


def test_a_fresh_start_that_fails_differently_goes_on_healing():
    other = "def add(a, b):\n    return a * b\n"
    model = ScriptedModel(messages=iter([
        fenced(BAD_ADD), "It subtracts.", fenced(rewritten(BAD_ADD)), fenced(other), "It multiplies.", fenced(GOOD_ADD),
    ]))
    result = run(model, max_attempts=5)
    assert (result["status"], result["attempts"]) == ("passed", 4)


def test_resampling_never_shows_the_model_any_feedback():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(rewritten(BAD_ADD)), fenced(GOOD_ADD)]))
    result = run(model, max_attempts=3, policy=Policy.preset("self_heal", feedback=False, reflect=False))
    assert result["status"] == "passed" and result["attempts"] == 3
    first = model.prompt(0)
    assert all(model.prompt(i) == first for i in range(3))
    assert FAILED_BEFORE not in first and "Lessons" not in first


def test_an_import_crash_is_named_with_its_line_and_a_static_note():
    crashing = "def add(a: Number, b: Number):\n    return a + b\n"
    model = ScriptedModel(messages=iter([fenced(crashing)]))
    result = run(model, max_attempts=1)
    summary = result["history"][0]["summary"]
    assert "solution.py crashed on import at line 1: NameError: name 'Number' is not defined" in summary


def test_static_findings_reach_the_next_prompt():
    wrong = "def add(a, b):\n    total = a - b\n    return a - b\n"
    model = ScriptedModel(messages=iter([fenced(wrong), "lesson", fenced(GOOD_ADD)]))
    run(model, max_attempts=2)
    assert "static check, solution.py line 2: local variable 'total' is assigned to but never used" in model.prompt(2)
