"""A real crash: `codeheal solve` is SIGKILLed mid-run and continued from its checkpoints."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest
from killing import cli_env, codeheal, hang_second_attempt, kill_after_first_reflection
from langgraph.checkpoint.sqlite import SqliteSaver
from scripted_openai import ADD_TASK, ADD_TESTS, BAD_ADD, GOOD_ADD, LESSON, ScriptedServer

from codeheal.runner import OUTPUT_KEYS
from codeheal.state import Attempt

THREAD = "killed-run"


def checkpointed(db: Path, thread: str) -> dict:
    """The thread's state as its latest checkpoint holds it, read through a new connection."""
    if not db.exists():
        return {}
    with SqliteSaver.from_conn_string(str(db)) as saver:
        item = saver.get_tuple({"configurable": {"thread_id": thread}})
    return item.checkpoint["channel_values"] if item else {}


@pytest.mark.parametrize("how", ["resume", "solve --thread"])
def test_a_killed_run_continues_where_it_stopped(tmp_path: Path, how: str) -> None:
    env = cli_env(tmp_path / "data")
    db = tmp_path / "data" / "codeheal" / "checkpoints.sqlite"
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    with ScriptedServer() as server:
        hang_second_attempt(server)
        model = ["--model", "scripted", "--base-url", server.url, "--policy", "self_heal"]
        solve = ["solve", ADD_TASK, "--tests", str(tests), "--json", "--thread", THREAD]
        proc = codeheal(*solve, *model, "--max-attempts", "5", env=env)
        at_kill = kill_after_first_reflection(proc, server, lambda: checkpointed(db, THREAD))
        assert proc.returncode == -signal.SIGKILL
        assert at_kill["attempts"] == 1 and at_kill["reflections"] == [LESSON]

        server.delay = lambda messages: 0.0
        again = ["resume", THREAD, "--json", *model] if how == "resume" else [*solve, *model]
        out, err = codeheal(*again, env=env).communicate(timeout=120)

    result = json.loads(out)
    assert result["status"] == "passed", err
    assert "resuming at attempt 2" in err and "up to 5 attempts" in err  # the run's own settings
    assert result["attempts"] == 2
    assert result["reflections"] == [LESSON]
    first, second = result["history"]
    assert (first["code"], first["reflection"]) == (BAD_ADD.strip(), LESSON)
    assert second["code"] == GOOD_ADD.strip() and second["summary"] == "passed 3/3"
    # The reflection was not redone; attempt 2 was asked for again, with the reflection in view.
    assert len(server.calls) - len(server.actor_calls()) == 1
    assert len(server.actor_calls()) == 3 and LESSON in server.actor_calls()[2][-1]["content"]
    assert set(result) == {*OUTPUT_KEYS, "task_checks", "totals", "thread"}
    module_form_keys = set(Attempt.__annotations__) - {"changes", "changed", "diff", "checked", "selection",
                                                       "in_test_process"}  # project form; weak tests; objects crossed
    assert all(set(record) == module_form_keys for record in result["history"])


def test_threads_and_show_report_a_killed_run(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    db = tmp_path / "data" / "codeheal" / "checkpoints.sqlite"
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    with ScriptedServer() as server:
        hang_second_attempt(server)
        proc = codeheal("solve", ADD_TASK, "--tests", str(tests), "--thread", THREAD,
                        "--model", "scripted", "--base-url", server.url, "--policy", "self_heal", env=env)
        kill_after_first_reflection(proc, server, lambda: checkpointed(db, THREAD))

    listed, _ = codeheal("threads", "--json", env=env).communicate(timeout=60)
    shown, _ = codeheal("show", THREAD, env=env).communicate(timeout=60)
    [thread] = json.loads(listed)
    assert (thread["thread_id"], thread["status"], thread["attempts"], thread["reflections"]) == (
        THREAD, "unfinished", 1, 1)
    assert thread["task"] == ADD_TASK
    assert f"thread {THREAD}: unfinished, 1 attempt(s)" in shown
    assert "attempt 1: failed 1/3 passed" in shown and f"1. {LESSON}" in shown
