"""One test of an unfinished run (codeheal.threads.is_unfinished): what `codeheal threads` lists
as unfinished is what `codeheal resume` continues, and what it lists as ended resume refuses."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from doubles import fenced, scripted
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command
from scripted_openai import (
    ADD_TASK,
    ADD_TESTS,
    BAD_ADD,
    ScriptedServer,
    heal_add,
    is_fix_actor,
)
from test_interrupt import SHOP, fix_script

from codeheal.checkpointers import open_checkpointer
from codeheal.cli import main
from codeheal.context import Context
from codeheal.loop.builder import build_graph
from codeheal.threads import list_threads

TEST = "python -m pytest -q"


def heal(body: dict) -> str:
    """Heals either form: the shop's bulk_discount, and `add`."""
    return fix_script(body) if is_fix_actor(body["messages"]) else heal_add(body)


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@e.com", "-c", "user.name=t", *args], cwd=project, check=True,
                   capture_output=True)


def run(capsys, db: Path, url: str, *args: str) -> tuple[int, str]:
    code = main([*args, "--model", "scripted", "--base-url", url, "--checkpointer", str(db)])
    return code, capsys.readouterr().err


def test_threads_lists_as_unfinished_exactly_the_runs_resume_continues(tmp_path: Path, capsys) -> None:
    db = tmp_path / "c.sqlite"
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    solve = ["solve", ADD_TASK, "--tests", str(tests)]
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "shop")
    pricing = project / "shop" / "pricing.py"

    def heal_while_the_user_edits(body: dict) -> str:
        if is_fix_actor(body["messages"]) and "work in progress" not in pricing.read_text():
            pricing.write_text(pricing.read_text() + "\n# work in progress\n")
        return heal(body)

    with ScriptedServer(error=(401, "invalid api key")) as down:
        assert run(capsys, db, down.url, *solve, "--thread", "cut")[0] == 3  # stopped at its first model call
    with ScriptedServer(heal_while_the_user_edits) as server:
        assert run(capsys, db, server.url, *solve, "--thread", "done")[0] == 0
        # healed, then the write refused at the run's last step (the file changed under the
        # run; uncommitted files are refused at the start): the change waits on the thread
        code, err = run(capsys, db, server.url, "fix", str(project), "--test", TEST, "--mutants", "0", "--apply",
                        "--thread", "refused")
        assert code == 2 and "changed since codeheal read the project" in " ".join(err.split())
        with open_checkpointer(str(db), must_exist=True) as saver:
            listed = {s.thread_id: s.status for s in list_threads(saver)}
        assert listed == {"cut": "unfinished", "done": "passed", "refused": "unfinished"}
        git(project, "checkout", "--", "shop/pricing.py")
        for thread, status in listed.items():
            code, err = run(capsys, db, server.url, "resume", thread)
            refused = "has nothing to resume" in " ".join(err.split())
            assert refused == (status != "unfinished"), (thread, status, err)
            assert code == (2 if refused else 0), err
            if not refused:  # a resumed run's calls and time are this process's, its tokens the whole run's
                assert " since the resume; " in err and " completion tokens over the whole run" in err
    assert "if quantity >= threshold:" in pricing.read_text()


def test_a_run_stopped_after_its_review_but_before_its_end_is_unfinished_for_both(tmp_path: Path, capsys) -> None:
    """The review's answer sets the run's status ("accepted") a step before the run ends: a
    run stopped in between still has that step left, so it is unfinished, not "accepted"."""
    db = tmp_path / "c.sqlite"
    config = {"configurable": {"thread_id": "t1"}}
    context = Context(max_attempts=1, review_on_exhaustion=True)
    with SqliteSaver.from_conn_string(str(db)) as saver:
        # Stopping before `finish` stands in for a kill at that moment.
        app = build_graph(llm=scripted(fenced(BAD_ADD))).compile(checkpointer=saver, interrupt_before=["finish"])
        app.invoke({"task": ADD_TASK, "tests": ADD_TESTS}, config, context=context)
        app.invoke(Command(resume={"action": "accept"}), config, context=context)
        assert app.get_state(config).next == ("finish",)
        assert [(s.thread_id, s.status) for s in list_threads(saver)] == [("t1", "unfinished")]
    with ScriptedServer() as server:
        code, err = run(capsys, db, server.url, "resume", "t1")
    assert code == 1 and "has nothing to resume" not in err and "not healed" in err
    with open_checkpointer(str(db), must_exist=True) as saver:
        assert [(s.thread_id, s.status) for s in list_threads(saver)] == [("t1", "accepted")]
