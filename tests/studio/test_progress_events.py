"""Live progress: the custom events the nodes emit, read through graph.stream."""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from codeheal import Context, build_graph
from codeheal.progress import AttemptStarted, emit

TASK = {"task": "Write add(a, b) returning the sum.", "tests": "assert add(2, 3) == 5\nassert add(0, 0) == 0\n"}
WRONG = AIMessage("```python\ndef add(a, b):\n    return a - b\n```")
RIGHT = AIMessage("```python\ndef add(a, b):\n    return a + b\n```")


def _stream(replies: list[AIMessage], context: Context, request: dict = TASK) -> list[tuple[str, dict]]:
    graph = build_graph(llm=GenericFakeChatModel(messages=iter(replies))).compile()
    return list(graph.stream(request, context=context, stream_mode=["updates", "custom"]))


def test_a_healed_run_reports_each_step_in_order():
    chunks = _stream([WRONG, AIMessage("It subtracts; add instead."), RIGHT], Context(max_attempts=3))
    custom = [data for mode, data in chunks if mode == "custom"]
    timings = ("seconds", "sandbox_seconds", "seconds_left")
    written = {"prompt_tokens": 0, "completion_tokens": 0}  # the fake model reports no usage
    assert [{k: v for k, v in event.items() if k not in timings} for event in custom] == [
        {"kind": "run_started", "first": "model", "files": 0},
        {"kind": "attempt_started", "attempt": 1, "max_attempts": 3},
        {"kind": "candidates_written", "attempt": 1, **written},
        {"kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 1, "total": 2,
         "summary": custom[3]["summary"], "isolation": "bwrap"},
        {"kind": "reflection_written", "attempt": 1, "reflection": "It subtracts; add instead."},
        {"kind": "attempt_started", "attempt": 2, "max_attempts": 3},
        {"kind": "candidates_written", "attempt": 2, **written},
        {"kind": "tests_result", "attempt": 2, "passed": True, "passed_count": 2, "total": 2,
         "summary": "passed 2/2", "isolation": "bwrap"},
        {"kind": "status", "status": "passed", "attempts": 2},
    ]
    assert custom[3]["summary"].startswith("failed 1/2")
    assert all(590 < event["seconds_left"] <= 600 for event in custom if event["kind"] == "attempt_started")
    tested = [event for event in custom if event["kind"] == "tests_result"]
    assert all(event["seconds"] >= event["sandbox_seconds"] > 0 for event in tested)
    nodes = [next(iter(data)) for mode, data in chunks if mode == "updates"]
    assert nodes == ["prepare", "attempt", "reflector", "attempt", "finish"]  # each attempt's steps: its subgraph's


def test_exhausted_run_ends_with_a_failed_status_event():
    chunks = _stream([WRONG, AIMessage("lesson")], Context(max_attempts=1))
    custom = [data for mode, data in chunks if mode == "custom"]
    assert [event["kind"] for event in custom] == ["run_started", "attempt_started", "candidates_written", "tests_result", "status"]
    assert custom[-1] == {"kind": "status", "status": "failed", "attempts": 1}


def test_starting_code_is_tested_without_an_attempt_started_event():
    request = {**TASK, "starting_code": "def add(a, b):\n    return a + b\n"}
    custom = [data for mode, data in _stream([], Context(), request) if mode == "custom"]
    assert [event["kind"] for event in custom] == ["run_started", "tests_result", "status"]
    assert custom[0] == {"kind": "run_started", "first": "starting_code", "files": 0}


def test_emit_outside_a_run_is_a_no_op():
    emit(AttemptStarted(kind="attempt_started", attempt=1, max_attempts=1))
