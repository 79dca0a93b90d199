"""Human review on exhaustion: interrupt with the best attempt, then accept, abort or retry."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from codeheal import Context, build_graph
from codeheal.errors import InputError

TASK = {"task": "Write add(a, b) returning the sum.", "tests": "assert add(2, 3) == 5\nassert add(0, 0) == 0\n"}
HALF = AIMessage("```python\ndef add(a, b):\n    return a - b\n```")  # passes 1 of 2
NONE = AIMessage("```python\ndef add(a, b):\n    return None\n```")  # passes 0 of 2
NONE_AGAIN = AIMessage("```python\ndef add(x, y):\n    return None\n```")  # the same failure, no repeat
RIGHT = AIMessage("```python\ndef add(a, b):\n    return a + b\n```")
LESSON = AIMessage("It returns None on the second try; go back to arithmetic.")
REVIEW = Context(policy="self_heal", max_attempts=2, review_on_exhaustion=True)
CONFIG = {"configurable": {"thread_id": "review"}}


def _paused(replies: list[AIMessage]):
    """A graph on a checkpointed thread, run until it pauses for review."""
    graph = build_graph(llm=GenericFakeChatModel(messages=iter(replies))).compile(checkpointer=InMemorySaver())
    result = graph.invoke(TASK, CONFIG, context=REVIEW)
    (pause,) = result["__interrupt__"]
    return graph, pause.value


def _resume(graph, decision) -> tuple[dict, list[dict]]:
    chunks = list(graph.stream(Command(resume=decision), CONFIG, context=REVIEW, stream_mode=["custom", "values"]))
    custom = [data for mode, data in chunks if mode == "custom"]
    return graph.get_state(CONFIG).values, custom


def test_exhaustion_pauses_with_the_best_attempt_and_its_failure():
    graph, request = _paused([HALF, LESSON, NONE])
    assert graph.get_state(CONFIG).next == ("review",)
    assert request["kind"] == "review"
    assert request["code"] == "def add(a, b):\n    return a - b"
    assert (request["attempt"], request["attempts"]) == (1, 2)
    assert (request["passed_count"], request["total"]) == (1, 2)
    assert request["summary"].startswith("failed 1/2")
    assert request["reflections"] == [LESSON.content]
    assert "retry" in request["resume_with"]


def test_accept_keeps_the_best_attempt_with_status_accepted():
    graph, _ = _paused([HALF, LESSON, NONE])
    values, custom = _resume(graph, {"action": "accept"})
    assert values["status"] == "accepted"
    assert values["code"] == "def add(a, b):\n    return a - b"
    assert custom == [{"kind": "status", "status": "accepted", "attempts": 2}]
    assert graph.get_state(CONFIG).next == ()


def test_abort_ends_failed_and_keeps_the_output_shape():
    graph, _ = _paused([HALF, LESSON, NONE])
    values, custom = _resume(graph, {"action": "abort"})
    assert values["status"] == "failed" and values["attempts"] == 2
    assert custom == [{"kind": "status", "status": "failed", "attempts": 2}]
    assert {"code", "status", "attempts", "reflections", "history"} <= set(values)


def test_retry_with_a_hint_joins_the_memory_and_grants_attempts():
    graph, _ = _paused([HALF, LESSON, NONE, RIGHT])
    values, custom = _resume(graph, {"action": "retry", "hint": "Return a + b.", "more_attempts": 2})
    hint = "Human reviewer: Return a + b."
    assert values["status"] == "passed" and values["attempts"] == 3
    assert values["reflections"] == [LESSON.content, hint]
    assert values["history"][1]["reflection"] == hint
    assert "return a + b" in values["code"]
    assert [event["kind"] for event in custom] == [
        "reflection_written", "attempt_started", "candidates_written", "tests_result", "status",
    ]
    left = custom[1].pop("seconds_left")
    assert custom[1] == {"kind": "attempt_started", "attempt": 3, "max_attempts": 4}
    assert 590 < left <= 600  # the reviewer's retry starts the run's time afresh


def test_a_retry_that_fails_again_pauses_again():
    graph, _ = _paused([HALF, LESSON, NONE, NONE_AGAIN])
    _resume(graph, {"action": "retry", "hint": "Return a + b."})
    state = graph.get_state(CONFIG)
    assert state.next == ("review",)
    assert state.values["attempts"] == 3 and state.values["attempt_limit"] == 3


@pytest.mark.parametrize("decision", [
    "accept", {"action": "maybe"}, {"action": "retry"}, {"action": "retry", "hint": "x", "more_attempts": 0},
])
def test_an_unusable_decision_says_how_to_resume(decision):
    graph, _ = _paused([HALF, LESSON, NONE])
    with pytest.raises(InputError, match="review"):
        graph.invoke(Command(resume=decision), CONFIG, context=REVIEW)


def test_without_the_flag_exhaustion_ends_the_run():
    graph = build_graph(llm=GenericFakeChatModel(messages=iter([HALF, LESSON, NONE]))).compile(
        checkpointer=InMemorySaver()
    )
    result = graph.invoke(TASK, CONFIG, context=Context(max_attempts=2))
    assert result["status"] == "failed" and "__interrupt__" not in result
