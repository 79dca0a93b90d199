"""A readable run: the last line's totals (and the same in --json), a failing `solve` that
keeps stdout empty, no traceback on a closed pipe, a checked --base-url, fix threads listed
by project."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from scripted_openai import ADD_TASK, ADD_TESTS, BAD_ADD, ScriptedServer, replies_in_order

from codeheal.cli import main


def solve(tmp_path: Path, server: ScriptedServer, *extra: str) -> list[str]:
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    return ["solve", ADD_TASK, "--tests", str(tests), "--model", "scripted", "--base-url", server.url,
            "--checkpointer", str(tmp_path / "c.sqlite"), *extra]


def test_the_last_line_and_the_json_give_tokens_calls_seconds_and_what_healed(tmp_path: Path, capsys) -> None:
    with ScriptedServer() as server:
        code = main(solve(tmp_path, server, "--policy", "self_heal", "--json"))
    out, err = capsys.readouterr()
    assert code == 0, err
    totals = json.loads(out)["totals"]
    # attempt 1, its reflection, attempt 2: three requests of 10 prompt + 5 completion tokens
    assert {k: totals[k] for k in ("prompt_tokens", "completion_tokens", "model_calls", "healed_by",
                                   "healed_by_model")} == {
        "prompt_tokens": 30, "completion_tokens": 15, "model_calls": 3, "healed_by": "model",
        "healed_by_model": "scripted"}
    assert 0 < totals["seconds"] < 120
    # where the seconds went (one candidate an attempt: the parts do not overlap, so they fit the wall time)
    parts = totals["breakdown"]
    assert set(parts) == {"prompt_evaluated", "prompt_reused", "prompt_seconds", "generation_seconds",
                          "sandbox_seconds", "overhead_seconds"}
    assert parts["sandbox_seconds"] > 0 and parts["overhead_seconds"] >= 0
    spent = parts["prompt_seconds"] + parts["generation_seconds"] + parts["sandbox_seconds"] + parts["overhead_seconds"]
    assert spent <= totals["seconds"] + 0.01
    last = err.strip().splitlines()[-1]
    assert last == (f"{totals['seconds']:.1f} s, 3 model calls, 30 prompt + 15 completion tokens; "
                    "healed by the model scripted")


def test_given_code_that_passes_needed_nothing(tmp_path: Path, capsys) -> None:
    code_file = tmp_path / "given.py"
    code_file.write_text("def add(a, b):\n    return a + b\n")
    with ScriptedServer() as server:
        code = main(solve(tmp_path, server, "--code", str(code_file), "--json"))
    out, err = capsys.readouterr()
    assert code == 0, err
    totals = json.loads(out)["totals"]
    assert totals["healed_by"] == "nothing" and totals["healed_by_model"] is None and totals["model_calls"] == 0
    assert err.strip().splitlines()[-1].endswith("0 model calls, 0 prompt + 0 completion tokens; nothing to heal")


def test_a_failing_solve_leaves_stdout_empty_and_shows_its_best_code_on_stderr(tmp_path: Path, capsys) -> None:
    out_file = tmp_path / "solution.py"
    with ScriptedServer(replies_in_order([f"```python\n{BAD_ADD}```"], "no idea")) as server:
        code = main(solve(tmp_path, server, "--max-attempts", "2", "--out", str(out_file)))
    out, err = capsys.readouterr()
    assert code == 1
    assert out == "" and not out_file.exists()
    assert "return a - b" in err and "not healed" in err


def test_a_closed_pipe_ends_quietly() -> None:
    """`codeheal graph | head`: the reader is gone before the command writes."""
    proc = subprocess.Popen([sys.executable, "-m", "codeheal.cli", "graph"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_base_url_is_checked_as_a_url(tmp_path: Path, capsys) -> None:
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    code = main(["solve", ADD_TASK, "--tests", str(tests), "--base-url", "localhost:8080"])
    err = capsys.readouterr().err
    assert code == 2 and "is not a URL" in err and "http://127.0.0.1:8080/v1" in err


def test_threads_show_a_fix_threads_project_and_test_command() -> None:
    from langgraph.checkpoint.base import empty_checkpoint
    from langgraph.checkpoint.memory import InMemorySaver

    from codeheal.threads import list_threads

    saver = InMemorySaver()
    for thread, values in (("f", {"task": "The project's tests fail; make them pass.", "project": "/src/shop",
                                  "test_command": "python -m pytest -q", "status": "passed"}),
                           ("s", {"task": ADD_TASK, "status": "passed"})):
        versions = dict.fromkeys(values, 1)
        checkpoint = {**empty_checkpoint(), "channel_values": values, "channel_versions": versions}
        saver.put({"configurable": {"thread_id": thread, "checkpoint_ns": ""}}, checkpoint, {"source": "loop"}, versions)
    listed = {s.thread_id: s for s in list_threads(saver)}
    assert (listed["f"].task, listed["f"].project) == ("/src/shop: python -m pytest -q", "/src/shop")
    assert (listed["s"].task, listed["s"].project) == (ADD_TASK, None)


def test_an_interrupt_waits_for_a_change_being_written_then_stops() -> None:
    import _thread
    import threading
    import time

    import pytest

    from codeheal.errors import RunInterrupted
    from codeheal.interrupts import WRITING
    from codeheal.runner import _abandonable

    def run():
        yield "first"
        with WRITING:
            _thread.interrupt_main()  # Ctrl-C while the change is being written
            time.sleep(1.0)
        yield "never seen"
        threading.Event().wait(60)

    seen = []
    started = time.monotonic()
    with pytest.raises(RunInterrupted) as raised:
        for item in _abandonable(run(), "t9"):
            seen.append(item)
    try:
        assert "never seen" not in seen and raised.value.signum == 2
        assert str(raised.value) == "interrupted; continue with: codeheal resume t9"
        assert 1.0 <= time.monotonic() - started < 5
    finally:
        WRITING.release()


def test_one_attempt_is_said_in_the_singular(tmp_path: Path, capsys) -> None:
    with ScriptedServer() as server:
        main(solve(tmp_path, server, "--max-attempts", "1"))
    err = capsys.readouterr().err
    assert "· up to 1 attempt\n" in err and "1 attempts" not in err
