"""The project's files are kept outside state: no checkpoint and no candidate's task holds
them, a run resumed by another process reads the project again, and a project changed since
the run read it stops the run with a clear error."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from doubles import SHOP_FIXED, scripted
from langgraph.checkpoint.sqlite import SqliteSaver
from test_fix import LESSON, TEST, shop  # noqa: F401 (the fixture)

from codeheal import Context, build_graph
from codeheal.forms.project import workspace_store
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.workspace_store import (
    WorkspaceChanged,
    keep,
    workspace_files,
    workspace_key,
)

MARKER = "workspace-marker-5f1c9e"
"""Text of a project file no attempt changes and no prompt or test output quotes."""


@pytest.fixture
def marked(shop: Path) -> Path:  # noqa: F811 (the fixture imported above)
    (shop / "shop" / "notes.py").write_text(f'NOTE = "{MARKER}"\n', encoding="utf-8")
    return shop


def forget_every_workspace() -> None:
    """What a new process holds: nothing."""
    workspace_store._kept.clear()


def test_the_key_is_the_content_and_the_kept_files_are_read_only(tmp_path: Path) -> None:
    files = {"a.py": "x = 1\n", "b/c.py": "y = 2\n"}
    key = keep(files)
    assert key == workspace_key(dict(reversed(files.items())))  # order does not matter
    assert key != workspace_key({"a.py": "x = 1\n", "b/c.py": "y = 3\n"})
    assert workspace_key({"ab": "c"}) != workspace_key({"a": "bc"})  # paths and texts do not run together
    kept = workspace_files(str(tmp_path), key)
    assert dict(kept) == files
    with pytest.raises(TypeError):
        kept["a.py"] = "changed"  # type: ignore[index]


def test_a_process_without_the_files_reads_the_project_again_and_checks_it(marked: Path) -> None:
    key = keep(read_project(marked).files)
    forget_every_workspace()
    assert MARKER in workspace_files(str(marked), key)["shop/notes.py"]
    forget_every_workspace()
    (marked / "shop" / "notes.py").write_text("NOTE = 'edited'\n", encoding="utf-8")
    with pytest.raises(WorkspaceChanged, match="changed since this run read it"):
        workspace_files(str(marked), key)


def test_no_checkpoint_holds_the_project_and_a_resume_elsewhere_finishes(marked: Path, tmp_path: Path) -> None:
    db = tmp_path / "checkpoints.sqlite"
    config = {"configurable": {"thread_id": "fix"}}
    with SqliteSaver.from_conn_string(str(db)) as saver:
        app = build_graph(llm=scripted(LESSON, SHOP_FIXED)).compile(checkpointer=saver, interrupt_after=["attempt"])
        app.invoke({"project": str(marked), "test_command": TEST}, config, context=Context(max_attempts=4))
        assert app.get_state(config).next == ("attempt",)  # the project was tested as it is
        forget_every_workspace()  # the run goes on as if another process resumed it
        resumed = build_graph(llm=scripted(LESSON, SHOP_FIXED)).compile(checkpointer=saver)
        result = resumed.invoke(None, config, context=Context(max_attempts=4))
    assert result["status"] == "passed" and "bulk_discount" in result["diff"]
    stored = b"".join(
        bytes(value) for table in ("checkpoints", "writes") for row in sqlite3.connect(db).execute(f"SELECT * FROM {table}")
        for value in row if isinstance(value, bytes)
    )
    assert b"bulk_discount" in stored  # the changed file is in the attempt's record, as it should be
    assert MARKER.encode() not in stored  # the unchanged files are in no checkpoint and no task


def test_a_resume_after_the_project_changed_stops_with_a_clear_error(marked: Path, tmp_path: Path) -> None:
    config = {"configurable": {"thread_id": "fix"}}
    with SqliteSaver.from_conn_string(str(tmp_path / "checkpoints.sqlite")) as saver:
        app = build_graph(llm=scripted(LESSON, SHOP_FIXED)).compile(checkpointer=saver, interrupt_after=["attempt"])
        app.invoke({"project": str(marked), "test_command": TEST}, config, context=Context(max_attempts=4))
        forget_every_workspace()
        (marked / "shop" / "notes.py").write_text("NOTE = 'edited while the run was paused'\n", encoding="utf-8")
        with pytest.raises(WorkspaceChanged, match="start a new run"):
            app.invoke(None, config, context=Context(max_attempts=4))
