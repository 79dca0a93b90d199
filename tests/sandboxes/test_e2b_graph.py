"""The whole loop with Context(sandbox="e2b") against the fake: heals exactly as locally,
one remote sandbox per attempt, each killed when its test run ends; infrastructure faults
retried without costing an attempt."""

from __future__ import annotations

import asyncio

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, fenced, rewritten, scripted
from fake_server import FakeE2B

from codeheal import Context, build_graph
from codeheal.errors import SandboxAuthError

TASK = {"task": "Add two numbers.", "tests": ADD_TESTS}
LESSON = "add subtracts; it must return a + b."


def heal(sandbox: str, **context):
    model = scripted(fenced(BAD_ADD), LESSON, fenced(GOOD_ADD))
    return build_graph(llm=model).compile().invoke(TASK, context=Context(sandbox=sandbox, **context))


def without_timings(result: dict) -> dict:
    return {**result, "history": [{k: v for k, v in h.items() if k not in TIMINGS} for h in result["history"]]}


TIMINGS = {"seconds", "sandbox_seconds", "prompt_seconds", "generation_seconds"}
"""What differs between two runs of the same attempts: the wall-clock parts of its breakdown."""


def test_graph_heals_through_e2b_exactly_as_locally(api_env, fake: FakeE2B):
    remote = heal("e2b")
    assert remote["status"] == "passed" and remote["attempts"] == 2
    assert remote["code"].strip() == GOOD_ADD.strip()
    assert without_timings(remote) == without_timings(heal("local"))
    assert len(fake.record.created) == 2  # a remote sandbox of its own for each attempt
    assert fake.record.killed == fake.record.created  # each killed after its test run


def test_every_run_kills_its_sandbox_also_when_it_fails(api_env, fake: FakeE2B):
    model = scripted(fenced(BAD_ADD), "lesson", fenced(rewritten(BAD_ADD)))
    failed = build_graph(llm=model).compile().invoke(TASK, context=Context(sandbox="e2b", max_attempts=2))
    assert failed["status"] == "failed"
    passed = heal("e2b")
    assert passed["status"] == "passed"
    assert len(fake.record.created) == 2 + 2  # one per attempt: two attempts, then two
    assert fake.record.killed == fake.record.created


def test_async_graph_run_kills_its_sandbox(api_env, fake: FakeE2B):
    model = scripted(fenced(BAD_ADD), LESSON, fenced(GOOD_ADD))
    compiled = build_graph(llm=model).compile()
    result = asyncio.run(compiled.ainvoke(TASK, context=Context(sandbox="e2b")))
    assert result["status"] == "passed" and result["attempts"] == 2
    assert len(fake.record.created) == 2 and fake.record.killed == fake.record.created


def test_sandbox_killed_mid_run_is_retried_and_costs_no_attempt(api_env, fake: FakeE2B):
    fake.kill_during_command = True
    slow_good = "import time\n\ndef add(a, b):\n    time.sleep(1)\n    return a + b\n"
    model = scripted(fenced(slow_good))
    result = build_graph(llm=model).compile().invoke(TASK, context=Context(sandbox="e2b"))
    assert result["status"] == "passed" and result["attempts"] == 1
    assert len(fake.record.created) == 2  # the killed one, then a fresh one for the retry
    assert fake.record.killed == fake.record.created[1:]  # the first one E2B had already ended


def test_rate_limit_past_the_sdk_retries_is_retried_by_the_graph(api_env, fake: FakeE2B):
    fake.create_statuses = [429] * 4  # the SDK itself retries 3 times
    result = heal("e2b")
    assert result["status"] == "passed" and result["attempts"] == 2
    assert fake.create_statuses == [] and fake.record.killed == fake.record.created


def test_rejected_key_stops_the_run_without_retrying(api_env, fake: FakeE2B, monkeypatch):
    monkeypatch.setenv("E2B_API_KEY", "e2b_wrong")
    with pytest.raises(SandboxAuthError, match="E2B rejected the API key"):
        heal("e2b")
    assert fake.record.created == []
