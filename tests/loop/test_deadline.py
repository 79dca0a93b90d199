"""The run's deadline (Context.deadline_s): no work starts once too little time is left, a model
call is cut at it, and the run ends with status "deadline" and its best attempt so far."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from doubles import ADD_TESTS, BAD_ADD, ScriptedModel, fenced
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult

from codeheal import Context, build_graph, rules
from codeheal.context import resolve
from codeheal.errors import ConfigError, DeadlineReached
from codeheal.prompting.model_call import ModelCall, ainvoke_model, invoke_model
from codeheal.state import State

TASK = {"task": "Add two numbers.", "tests": ADD_TESTS}
HOLD = "<hold until released>"


class HeldModel(ScriptedModel):
    """A scripted model whose reply HOLD blocks the call until `release` is set (a model call
    slower than the time left)."""

    release: Any = None

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        result = super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        if result.generations[0].message.content == HOLD:
            self.release.wait(30)
        return result


def held(*replies: str) -> HeldModel:
    return HeldModel(messages=iter(replies), release=threading.Event())


def test_the_default_deadline_applies_and_an_explicit_value_wins(monkeypatch) -> None:
    monkeypatch.setenv("CODEHEAL_DEADLINE_S", "120")
    assert Context().deadline_s == 120
    assert Context(deadline_s=30).deadline_s == 30
    assert resolve({"deadline_s": 45.5}, config={"deadline_s": 90}).context.deadline_s == 45.5
    monkeypatch.delenv("CODEHEAL_DEADLINE_S")
    assert Context().deadline_s == 600


@pytest.mark.parametrize("value", [0, -5, "soon", None])
def test_a_bad_deadline_is_refused(value) -> None:
    with pytest.raises(ConfigError, match="deadline_s must be"):
        resolve({"deadline_s": value})


def test_time_left_is_read_from_the_deadline_in_state() -> None:
    state = State(deadline=1000.0)
    assert rules.seconds_left(state, now=990.0) == 10.0
    assert not rules.out_of_time(state, now=990.0)
    assert rules.out_of_time(state, now=1000.0 - rules.MIN_CALL_S + 0.1)
    assert rules.seconds_left(State(), now=5.0) is None and not rules.out_of_time(State())


def test_an_attempt_says_how_long_is_left() -> None:
    events, values = [], {}
    graph = build_graph(llm=ScriptedModel(messages=iter([fenced("def add(a, b):\n    return a + b\n")]))).compile()
    for mode, chunk in graph.stream(TASK, context=Context(deadline_s=300), stream_mode=["custom", "values"]):
        (events.append if mode == "custom" else values.update)(chunk)
    assert values["status"] == "passed"
    [started] = [e for e in events if e["kind"] == "attempt_started"]
    assert 290 < started["seconds_left"] <= 300


def test_a_model_call_slower_than_the_time_left_is_cut() -> None:
    model = held(HOLD)
    started = time.perf_counter()
    with pytest.raises(DeadlineReached, match="cut at the run's deadline"):
        invoke_model(ModelCall(model, [], timeout_s=0.2))
    assert time.perf_counter() - started < 5
    model.release.set()


def test_an_awaited_model_call_is_cut_too() -> None:
    import asyncio

    model = held(HOLD)
    try:
        with pytest.raises(DeadlineReached):
            asyncio.run(ainvoke_model(ModelCall(model, [], timeout_s=0.2)))
    finally:
        model.release.set()


def test_a_run_whose_model_call_outlives_the_deadline_ends_with_its_best_attempt(monkeypatch) -> None:
    monkeypatch.setattr(rules, "MIN_CALL_S", 0.05)
    model = held(fenced(BAD_ADD), HOLD)
    started = time.perf_counter()
    try:
        result = build_graph(llm=model).compile().invoke(
            TASK, context=Context(deadline_s=1.5, max_attempts=3, policy="resample"))
    finally:
        model.release.set()
    assert time.perf_counter() - started < 10
    assert (result["status"], result["attempts"]) == ("deadline", 1)
    assert result["code"].strip() == BAD_ADD.strip()  # the best attempt so far


def test_no_model_call_starts_once_the_time_is_out(monkeypatch) -> None:
    model = ScriptedModel(messages=iter([fenced(BAD_ADD)] * 3))
    result = build_graph(llm=model).compile().invoke(TASK, context=Context(deadline_s=rules.MIN_CALL_S / 2))
    assert result["status"] == "deadline" and result["attempts"] == 0 and model.calls == []


def test_a_test_run_started_near_the_deadline_is_limited_to_the_time_left() -> None:
    from codeheal.nodes.candidate_test import within_deadline
    from codeheal.sandboxes.base import Job
    from codeheal.steps import SandboxRun

    assert rules.test_run_limit(120.0, None) == 120.0
    assert rules.test_run_limit(120.0, time.time() + 1000) == 120.0
    assert 25 < rules.test_run_limit(120.0, time.time() + 30) <= 30
    assert rules.test_run_limit(120.0, time.time() - 5) == rules.TEST_FLOOR_S  # a run is never given no time

    def body():
        result = yield SandboxRun(None, Job(files={}, python_args=(), timeout_s=120.0))  # type: ignore[arg-type]
        return result

    steps = within_deadline(body(), time.time() + 30)
    call = next(steps)
    assert 25 < call.job.timeout_s <= 30
    with pytest.raises(StopIteration) as done:
        steps.send("the run's result")
    assert done.value.value == "the run's result"
