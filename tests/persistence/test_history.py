"""Threads as a history of runs: `threads` and `show` name a fix run's project, test command,
status and change; `show --diff` prints a finished run's change again; a run refused after it
began is `refused`, not unfinished; piped, `threads` keeps every column in full and errors stay
on one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from doubles import SHOP, SHOP_FIXED
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import EXIT_BAD_INPUT, EXIT_PASSED, main

LESSON = "bulk_discount compares with > but a tier starts at its threshold: use >=."
TEST = "python -m pytest -q"


@pytest.fixture
def store(tmp_path: Path) -> str:
    return str(tmp_path / "checkpoints.sqlite")


def test_a_fix_runs_project_command_status_and_change_are_shown_again(tmp_path: Path, store: str, capsys) -> None:
    shop = tmp_path / "shop"
    shutil.copytree(SHOP, shop)
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as server:
        assert main(["fix", str(shop), "--test", TEST, "--model", "scripted", "--base-url", server.url, "--mutants", "0",
                     "--thread", "heal1", "--checkpointer", store, "-q"]) == EXIT_PASSED
    diff = capsys.readouterr().out
    assert "+        if quantity >= threshold:" in diff

    assert main(["threads", "--checkpointer", store]) == EXIT_PASSED
    [line] = capsys.readouterr().out.splitlines()
    thread, status, attempts, reflections, _, task = line.split("\t")
    assert (thread, status, attempts, reflections, task) == ("heal1", "passed", "2", "1", f"{shop}: {TEST}")

    assert main(["show", "heal1", "--checkpointer", store]) == EXIT_PASSED
    shown = capsys.readouterr().out
    assert f"project: {shop}\n" in shown and f"test command: {TEST}\n" in shown
    assert "change: 1 file, +1 -1 (`codeheal show heal1 --diff` prints it)" in shown

    assert main(["show", "heal1", "--diff", "--checkpointer", store]) == EXIT_PASSED
    assert capsys.readouterr().out == diff


def test_a_run_refused_after_it_began_is_refused_and_its_error_one_line(tmp_path: Path, store: str, capsys) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    command = "python -c 'import sys; sys.exit(3)'"
    assert main(["fix", str(project), "--test", command, "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
                 "--thread", "no-frames", "--checkpointer", store, "-q"]) == EXIT_BAD_INPUT
    error = capsys.readouterr().err
    [line] = [line for line in error.splitlines() if line.startswith("codeheal: error:")]
    assert len(line) > 80 and line.endswith("Check that the command runs the project's Python tests")

    assert main(["threads", "--checkpointer", store]) == EXIT_PASSED
    assert capsys.readouterr().out.split("\t")[1] == "refused"
    assert main(["show", "no-frames", "--diff", "--checkpointer", store]) == EXIT_BAD_INPUT
    assert "no change to print: its run ended refused" in capsys.readouterr().err
    assert main(["resume", "no-frames", "--checkpointer", store]) == EXIT_BAD_INPUT
    said = " ".join(capsys.readouterr().err.split())
    assert "its run was refused (bad input): start a new run" in said and "ended running" not in said
