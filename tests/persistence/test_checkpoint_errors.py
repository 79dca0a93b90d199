"""A missing, foreign or corrupted checkpoint database is an error (exit 2), never a fresh start;
and a thread is only continued when there is something to continue."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from doubles import fenced, scripted
from langgraph.checkpoint.sqlite import SqliteSaver
from rich.console import Console
from scripted_openai import (
    ADD_TASK,
    ADD_TESTS,
    BAD_ADD,
    GOOD_ADD,
    LESSON,
    ScriptedServer,
)

from codeheal.cli import EXIT_BAD_INPUT, main
from codeheal.context import Context
from codeheal.errors import CheckpointError, InputError
from codeheal.loop.builder import build_graph
from codeheal.runner import run_with_progress


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default checkpoint database of a codeheal whose data directory is tmp_path."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("CODEHEAL_CHECKPOINTER", raising=False)
    return tmp_path / "data" / "codeheal" / "checkpoints.sqlite"


@pytest.fixture
def tests_file(tmp_path: Path) -> Path:
    path = tmp_path / "tests.py"
    path.write_text(ADD_TESTS)
    return path


def finished_thread(db: Path, thread: str) -> None:
    """A real thread in `db`: starting code that passes, so no model is needed."""
    db.parent.mkdir(parents=True, exist_ok=True)
    with SqliteSaver.from_conn_string(str(db)) as saver:
        app = build_graph().compile(checkpointer=saver)
        app.invoke({"task": ADD_TASK, "tests": ADD_TESTS, "starting_code": GOOD_ADD},
                   {"configurable": {"thread_id": thread}})


def crashed_thread(db: Path, thread: str) -> None:
    """A thread whose run died while writing attempt 2: the model has no third reply."""
    db.parent.mkdir(parents=True, exist_ok=True)
    with SqliteSaver.from_conn_string(str(db)) as saver:
        app = build_graph(llm=scripted(fenced(BAD_ADD), LESSON)).compile(checkpointer=saver)
        with pytest.raises(RuntimeError):  # the exhausted script: the process "dies" here
            app.invoke({"task": ADD_TASK, "tests": ADD_TESTS}, {"configurable": {"thread_id": thread}},
                       durability="sync")


def test_a_file_that_is_not_sqlite_is_refused_and_left_alone(
    db: Path, tests_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"these are my notes, not a database\n" * 100)
    before = db.read_bytes()
    for argv in (["resume", "t1"], ["show", "t1"], ["threads"], ["solve", ADD_TASK, "--tests", str(tests_file)]):
        assert main(argv) == EXIT_BAD_INPUT, argv
        assert "is not a SQLite database" in capsys.readouterr().err
    assert db.read_bytes() == before


def test_a_missing_database_is_not_created_by_resume_or_show(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["resume", "t1"], ["show", "t1"], ["threads"]):
        assert main(argv) == EXIT_BAD_INPUT
        assert "no checkpoint database at" in capsys.readouterr().err
    assert not db.exists()


def test_a_corrupted_database_is_reported(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finished_thread(db, "t1")
    size = db.stat().st_size
    db.write_bytes(db.read_bytes()[:100] + b"\xde\xad\xbe\xef" * ((size - 100) // 4))  # header kept
    for argv in (["resume", "t1"], ["show", "t1"], ["threads"]):
        assert main(argv) == EXIT_BAD_INPUT, argv
        assert "is unreadable" in capsys.readouterr().err


def test_resume_refuses_unknown_and_finished_threads(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    finished_thread(db, "done")
    assert main(["resume", "nope"]) == EXIT_BAD_INPUT
    assert "no thread 'nope'" in capsys.readouterr().err
    assert main(["resume", "done"]) == EXIT_BAD_INPUT
    assert "has nothing to resume: its last run ended passed" in capsys.readouterr().err


def test_a_crashed_run_is_continued_without_redoing_its_reflection(db: Path) -> None:
    crashed_thread(db, "t1")
    with ScriptedServer() as server:
        settings = {"model": "scripted", "base_url": server.url}
        console = Console(file=io.StringIO())
        with pytest.raises(InputError, match="unfinished run of a different task"):
            run_with_progress({"task": "Something else.", "tests": ADD_TESTS}, settings, "t1", console)
        result = run_with_progress(None, settings, "t1", console)
    assert (result["status"], result["attempts"], result["reflections"]) == ("passed", 2, [LESSON])
    assert len(server.calls) == 1 and server.actor_calls() == server.calls  # attempt 2 only


def test_open_checkpointer_refuses_a_sqlite_file_without_checkpoints(tmp_path: Path) -> None:
    import sqlite3

    from codeheal.checkpointers import open_checkpointer

    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE notes (text)").connection.commit()
    with pytest.raises(CheckpointError, match="holds no codeheal checkpoints"):
        with open_checkpointer(other, must_exist=True):
            pass


def test_an_unreachable_postgres_is_reported_without_its_password(capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://someone:secret@127.0.0.1:1/codeheal"
    assert main(["threads", "--checkpointer", url]) == EXIT_BAD_INPUT
    err = " ".join(capsys.readouterr().err.split())  # rich wraps long lines
    assert "cannot use the Postgres checkpointer at postgresql://someone@127.0.0.1:1/codeheal" in err
    assert "secret" not in err


def test_a_run_paused_for_review_is_listed_as_such_and_not_resumed(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db.parent.mkdir(parents=True)
    with SqliteSaver.from_conn_string(str(db)) as saver:
        app = build_graph(llm=scripted(fenced(BAD_ADD))).compile(checkpointer=saver)
        app.invoke({"task": ADD_TASK, "tests": ADD_TESTS}, {"configurable": {"thread_id": "t1"}},
                   context=Context(max_attempts=1, review_on_exhaustion=True))
    assert main(["threads", "--json"]) == 0
    assert [(t["thread_id"], t["status"]) for t in json.loads(capsys.readouterr().out)] == [("t1", "review")]
    assert main(["resume", "t1"]) == EXIT_BAD_INPUT
    assert "paused for a human review" in capsys.readouterr().err


def test_bad_input_is_refused_at_prepare_and_leaves_a_new_thread_unwritten(
    db: Path, tests_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bad input exits 2 before any model call, and the thread it named is not created: the CLI
    checks the module form's text before it opens the checkpointer (the library's callers meet
    the same check at the graph's prepare)."""
    bad = tests_file.with_name("bad.py")
    bad.write_text("def test_x(:\n    pass\n")
    with ScriptedServer() as server:
        assert main(["solve", ADD_TASK, "--tests", str(bad), "--thread", "t1", "--model", "scripted",
                     "--base-url", server.url]) == EXIT_BAD_INPUT
        assert server.calls == []
    assert "tests.py line 1" in capsys.readouterr().err
    if db.exists():
        with SqliteSaver.from_conn_string(str(db)) as saver:
            assert list(saver.list({"configurable": {"thread_id": "t1"}})) == []


def test_bad_input_on_a_finished_thread_leaves_its_last_run_as_it_was(db: Path) -> None:
    finished_thread(db, "done")
    console = Console(file=io.StringIO())
    with pytest.raises(InputError):
        run_with_progress({"task": ADD_TASK, "tests": "def test_x(:\n    pass\n"}, {}, "done", console)
    with SqliteSaver.from_conn_string(str(db)) as saver:
        state = build_graph().compile(checkpointer=saver).get_state({"configurable": {"thread_id": "done"}})
    assert not state.next and state.values["status"] == "passed" and state.values["code"].strip() == GOOD_ADD.strip()
    with pytest.raises(CheckpointError, match="has nothing to resume: its last run ended passed"):
        run_with_progress(None, {}, "done", console)


def test_a_new_run_is_announced_once_by_its_prepare(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from codeheal import runner

    events = []
    narrate = runner._Narrator.on_event
    monkeypatch.setattr(runner._Narrator, "on_event", lambda self, event: events.append(event["kind"]) or narrate(self, event))
    result = run_with_progress({"task": ADD_TASK, "tests": ADD_TESTS, "starting_code": GOOD_ADD}, {}, "t1",
                               Console(file=io.StringIO()))
    assert result["status"] == "passed" and events.count("run_started") == 1 and events[0] == "run_started"
