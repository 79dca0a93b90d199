"""The Postgres checkpointer: two worker processes continue one thread; batches and the
library open it too. Needs a server: .ci/run starts a throwaway one."""

from __future__ import annotations

import asyncio
import json
import os
import uuid
from pathlib import Path

import pytest
from killing import cli_env, codeheal, hang_second_attempt, kill_after_first_reflection
from scripted_openai import ADD_TASK, ADD_TESTS, BAD_ADD, LESSON, ScriptedServer

from codeheal import Context, open_checkpointer, solve_many
from codeheal.threads import thread_detail

URL = os.environ.get("CODEHEAL_TEST_POSTGRES_URL")
pytestmark = pytest.mark.skipif(
    not URL, reason="no PostgreSQL: set CODEHEAL_TEST_POSTGRES_URL=postgresql://... "
    "(.ci/run starts a throwaway server and sets it)",
)


def checkpointed(thread: str) -> dict:
    with open_checkpointer(URL) as saver:
        item = saver.get_tuple({"configurable": {"thread_id": thread}})
    return item.checkpoint["channel_values"] if item else {}


def test_a_second_worker_continues_the_thread_of_a_killed_one(tmp_path: Path) -> None:
    thread = f"pg-{uuid.uuid4().hex[:8]}"
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    with ScriptedServer() as server:
        hang_second_attempt(server)
        model = ["--model", "scripted", "--base-url", server.url, "--policy", "self_heal"]
        # Each worker has its own data directory: all they share is the Postgres server.
        first = codeheal("solve", ADD_TASK, "--tests", str(tests), "--thread", thread,
                         "--checkpointer", URL, *model, env=cli_env(tmp_path / "worker1"))
        kill_after_first_reflection(first, server, lambda: checkpointed(thread))
        server.delay = lambda messages: 0.0
        second_env = cli_env(tmp_path / "worker2", CODEHEAL_CHECKPOINTER=URL)
        out, err = codeheal("resume", thread, "--json", *model, env=second_env).communicate(timeout=120)
        listed, _ = codeheal("threads", "--json", env=second_env).communicate(timeout=60)

    result = json.loads(out)
    assert (result["status"], result["attempts"], result["reflections"]) == ("passed", 2, [LESSON]), err
    assert result["history"][0]["code"] == BAD_ADD.strip()
    assert len(server.calls) - len(server.actor_calls()) == 1  # the reflection was not redone
    mine = [t for t in json.loads(listed) if t["thread_id"] == thread]
    assert [(t["status"], t["attempts"]) for t in mine] == [("passed", 2)]


def test_a_batch_checkpoints_every_run_in_postgres() -> None:
    with ScriptedServer() as server:
        items = asyncio.run(solve_many(
            [{"task": ADD_TASK, "tests": ADD_TESTS}] * 3, concurrency=3,
            context=Context(model="scripted", base_url=server.url), checkpointer=URL,
        ))
    with open_checkpointer(URL) as saver:
        details = [thread_detail(saver, item.thread_id) for item in items]
    assert [(d.status, d.attempts, d.memory) for d in details] == [("passed", 2, [LESSON])] * 3
