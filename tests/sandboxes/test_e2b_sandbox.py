"""E2BSandbox against the fake: real SDK, real HTTP, real test runs; feedback as locally."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from e2b_code_interpreter import AsyncSandbox
from fake_server import FakeE2B

from codeheal import Context
from codeheal.context import E2BSettings
from codeheal.errors import ConfigError, SandboxAuthError, SandboxUnavailableError
from codeheal.evaluation.feedback import strip_ansi
from codeheal.evaluation.jobs import LAUNCH_MODULE, make_job
from codeheal.forms.module.candidate import _from_run
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import RunResult
from codeheal.sandboxes.e2b import E2BSandbox

GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"
TESTS = "def test_small():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n"


def feedback(result: RunResult) -> dict:
    return _from_run(result, TESTS)


def comparable(fb: dict) -> dict:
    """A Feedback without what differs between machines by nature."""
    return {k: v for k, v in fb.items() if k not in ("seconds", "isolation")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_passing_candidate_gives_the_same_feedback_as_local(api_env, fake: FakeE2B):
    job = make_job(GOOD, TESTS, timeout_s=20)
    remote = E2BSandbox().run(job)
    assert remote.isolation == "e2b" and remote.exit_code == 0
    assert feedback(remote)["passed"] is True
    assert comparable(feedback(remote)) == comparable(feedback(LocalSandbox().run(job)))
    assert len(fake.record.created) == 1
    assert fake.record.killed == fake.record.created  # a job without a session: killed after it
    assert fake.record.create_requests[0]["templateID"] == "code-interpreter-v1"
    assert fake.record.create_requests[0]["timeout"] == 300


def test_failing_test_comes_back_as_a_parsed_traceback_without_colour(api_env, fake: FakeE2B):
    job = make_job(BAD, TESTS, timeout_s=20)
    fb = feedback(E2BSandbox().run(job))
    assert fb["passed"] is False and (fb["passed_count"], fb["total"]) == (1, 2)
    failure = fb["failures"][0]
    assert failure["test"] == "test_small" and failure["exception"] == "AssertionError"
    assert (failure["expected"], failure["actual"]) == ("5", "-1")
    assert failure["frames"] and failure["frames"][-1]["source"] == "assert add(2, 3) == 5"
    assert "\x1b" not in str(fb)
    assert comparable(fb) == comparable(feedback(LocalSandbox().run(job)))


def test_timeout_is_enforced_by_codeheal_and_reported_as_feedback(api_env, fake: FakeE2B):
    hang = "import time\n\ndef add(a, b):\n    time.sleep(60)\n"
    started = time.perf_counter()
    result = E2BSandbox().run(make_job(hang, TESTS, timeout_s=1.5))
    elapsed = time.perf_counter() - started
    fb = feedback(result)
    assert result.timed_out and result.exit_code is None
    assert fb["timed_out"] and fb["error"].startswith("timed out") and "test_small" in fb["error"]
    assert 1.5 <= result.seconds < 3 and elapsed < 8
    assert fake.running == 0  # the process was killed in the sandbox, not just abandoned
    assert fake.record.killed == fake.record.created


def test_every_job_of_a_session_runs_in_a_sandbox_of_its_own(api_env, fake: FakeE2B):
    sandbox = E2BSandbox(template="my-template", lifetime_s=120)

    async def two_attempts_then_close() -> tuple[RunResult, RunResult, list[str]]:
        first = await sandbox.arun(make_job(BAD, TESTS, timeout_s=20, session="s1"))
        killed_after_first = list(fake.record.killed)
        second = await sandbox.arun(make_job(GOOD, TESTS, timeout_s=20, session="s1"))
        await sandbox.aclose_session("s1")
        return first, second, killed_after_first

    first, second, killed_after_first = asyncio.run(two_attempts_then_close())
    assert not feedback(first)["passed"] and feedback(second)["passed"]
    assert len(fake.record.created) == 2 and killed_after_first == fake.record.created[:1]
    assert fake.record.killed == fake.record.created  # closing the session had nothing left to kill
    assert fake.record.create_requests == [
        {"templateID": "my-template", "timeout": 120, "metadata": {}, "envVars": {}},
    ] * 2


def test_closing_a_session_kills_the_sandboxes_of_its_running_jobs(api_env, fake: FakeE2B):
    hang = "import time\n\ndef add(a, b):\n    time.sleep(60)\n"
    sandbox = E2BSandbox()

    async def close_midway() -> RunResult:
        task = asyncio.ensure_future(sandbox.arun(make_job(hang, TESTS, timeout_s=30, session="s4")))
        while fake.running == 0 or not any(f" -m {LAUNCH_MODULE} " in script for script, _ in fake.record.commands):
            await asyncio.sleep(0.05)
        await sandbox.aclose_session("s4")
        return await task

    with pytest.raises(SandboxUnavailableError, match="E2B sandbox stopped"):
        asyncio.run(close_midway())
    assert len(fake.record.created) == 1 and fake.record.killed == fake.record.created
    assert fake.running == 0


def test_sandbox_killed_mid_run_is_an_infrastructure_error(api_env, fake: FakeE2B):
    fake.kill_during_command = True
    slow = "import time\n\ndef add(a, b):\n    time.sleep(5)\n    return a + b\n"
    sandbox = E2BSandbox()
    with pytest.raises(SandboxUnavailableError, match="E2B sandbox stopped"):
        sandbox.run(make_job(slow, TESTS, timeout_s=20, session="s2"))
    # the dead handle was dropped: the session's next job gets a new sandbox
    assert feedback(sandbox.run(make_job(GOOD, TESTS, timeout_s=20, session="s2")))["passed"]
    assert len(fake.record.created) == 2
    sandbox.close_session("s2")
    assert fake.record.killed == fake.record.created[1:]


def test_rejected_key_is_an_auth_error_naming_e2b(api_env, fake: FakeE2B, monkeypatch):
    monkeypatch.setenv("E2B_API_KEY", "e2b_wrong")
    with pytest.raises(SandboxAuthError, match="E2B rejected the API key.*401.*E2B_API_KEY"):
        E2BSandbox().run(make_job(GOOD, TESTS, timeout_s=20))
    assert fake.record.created == []


def test_missing_key_fails_before_any_request(api_env, fake: FakeE2B, monkeypatch):
    monkeypatch.delenv("E2B_API_KEY")
    with pytest.raises(SandboxAuthError, match="E2B_API_KEY is not set"):
        E2BSandbox().run(make_job(GOOD, TESTS, timeout_s=20))
    assert fake.record.create_requests == []


def test_a_429_is_retried_and_then_succeeds(api_env, fake: FakeE2B):
    fake.create_statuses = [429]
    assert feedback(E2BSandbox().run(make_job(GOOD, TESTS, timeout_s=20)))["passed"]
    assert fake.create_statuses == [] and len(fake.record.created) == 1


def test_persistent_429_is_a_retryable_rate_limit_error(api_env, fake: FakeE2B):
    fake.create_statuses = [429] * 10
    with pytest.raises(SandboxUnavailableError, match="E2B is rate limiting"):
        E2BSandbox().run(make_job(GOOD, TESTS, timeout_s=20))
    assert fake.record.created == []


def test_connection_refused_is_a_retryable_unreachable_error(api_env, monkeypatch):
    closed = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("E2B_API_URL", closed)
    started = time.perf_counter()
    with pytest.raises(SandboxUnavailableError, match=f"cannot reach E2B at {closed}"):
        E2BSandbox().run(make_job(GOOD, TESTS, timeout_s=20))
    assert time.perf_counter() - started < 20


def test_debug_mode_needs_no_key_and_runs_in_the_sandbox_url(debug_env, fake: FakeE2B):
    result = E2BSandbox().run(make_job(GOOD, TESTS, timeout_s=20))
    assert feedback(result)["passed"]
    assert fake.record.create_requests == []  # debug mode: no control-plane call
    assert any("pytest" in script for script, _ in fake.record.commands)


def test_fake_speaks_the_code_interpreter_ndjson_protocol(debug_env, fake: FakeE2B):
    async def run_code():
        remote = await AsyncSandbox.create()
        return await remote.run_code("print('hi')\n1 / 0")

    execution = asyncio.run(run_code())
    assert execution.logs.stdout == ["hi\n"]
    assert execution.error.name == "ZeroDivisionError" and execution.error.value == "division by zero"
    assert "\x1b[" in execution.error.traceback
    assert strip_ansi(execution.error.traceback).rstrip().endswith("ZeroDivisionError: division by zero")


def test_cancelled_async_job_kills_its_sandbox(api_env, fake: FakeE2B):
    hang = "import time\n\ndef add(a, b):\n    time.sleep(60)\n"

    async def cancel_midway() -> None:
        task = asyncio.ensure_future(E2BSandbox().arun(make_job(hang, TESTS, timeout_s=30, session="s3")))
        while fake.running == 0:
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    deadline = time.monotonic() + 10
    while fake.record.killed != fake.record.created and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(fake.record.created) == 1 and fake.record.killed == fake.record.created


def test_context_fields_reach_the_sandbox_and_are_validated(monkeypatch):
    monkeypatch.setenv("CODEHEAL_E2B_TEMPLATE", "my-template")
    sandbox = E2BSandbox.from_context(Context(sandbox="e2b", e2b=E2BSettings(lifetime_s=60)))
    assert (sandbox.template, sandbox.lifetime_s) == ("my-template", 60)
    with pytest.raises(ConfigError, match="e2b_lifetime_s"):
        Context(e2b=E2BSettings(lifetime_s=0))
