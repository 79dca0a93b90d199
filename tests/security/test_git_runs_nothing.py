"""Nothing of the project runs on the host, `--apply` included: a repository whose own git
configuration would run a command at every chance (fsmonitor, clean/smudge filters, textconv,
an external diff, every hook, a hooks path, an untracked cache) is read and written by
codeheal (the snapshot, the uncommitted-changes check of --apply, the write itself) and none of
those commands runs. The check still tells a clean file from a changed, staged or untracked one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codeheal.forms.project.diff import DirtyTreeError, write_changes
from codeheal.forms.project.git import uncommitted
from codeheal.forms.project.snapshot import read_project

HOOKS = ("pre-commit", "post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc",
         "post-merge", "fsmonitor-watchman", "post-rewrite", "pre-push")


def git(project: Path, *args: str) -> None:
    run = subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, Path]:
    """A committed project whose git configuration runs `marks/<shape>` scripts; the folder
    where any that ran leaves its mark."""
    project, marks = tmp_path / "project", tmp_path / "marks"
    project.mkdir()
    marks.mkdir()
    (project / "app.py").write_text("def f():\n    return 1\n")
    (project / "other.py").write_text("X = 1\n")
    git(project, "init", "-q")
    git(project, "-c", "user.email=a@b", "-c", "user.name=a", "add", ".")
    git(project, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "start")

    def script(name: str, body: str = "") -> str:
        path = tmp_path / f"{name}.sh"
        path.write_text(f"#!/bin/sh\ntouch {marks}/{name}\n{body}\n")
        path.chmod(0o755)
        return str(path)

    settings = {
        "core.fsmonitor": script("fsmonitor"),
        "core.hooksPath": str(tmp_path / "hooks"),
        "core.untrackedCache": "true",
        "filter.evil.clean": script("clean", "cat"),
        "filter.evil.smudge": script("smudge", "cat"),
        "filter.evil.process": script("process"),
        "filter.evil.required": "false",
        "diff.evil.textconv": script("textconv", 'cat "$1"'),
        "diff.external": script("external"),
        "core.pager": script("pager"),
    }
    for key, value in settings.items():
        git(project, "config", key, value)
    (project / ".gitattributes").write_text("*.py filter=evil diff=evil\n")
    for folder in (tmp_path / "hooks", project / ".git" / "hooks"):
        folder.mkdir(exist_ok=True)
        for hook in HOOKS:
            (folder / hook).write_text(f"#!/bin/sh\ntouch {marks}/hook-{hook}\n")
            (folder / hook).chmod(0o755)
    (project / "app.py").touch()  # stat data changed: git would run the clean filter to compare
    return project, marks


def test_the_snapshot_runs_nothing_of_the_project(hostile: tuple[Path, Path]) -> None:
    project, marks = hostile
    snapshot = read_project(project)
    assert "app.py" in snapshot.files
    assert sorted(p.name for p in marks.iterdir()) == []


def test_apply_runs_nothing_of_the_project(hostile: tuple[Path, Path]) -> None:
    project, marks = hostile
    originals = read_project(project).files
    written = write_changes(project, {"app.py": "def f():\n    return 2\n"}, originals=originals)
    assert [p.name for p in written] == ["app.py"]
    assert (project / "app.py").read_text().endswith("return 2\n")
    with pytest.raises(DirtyTreeError):  # now uncommitted: a second write is refused
        write_changes(project, {"app.py": "def f():\n    return 3\n"}, originals=read_project(project).files)
    assert sorted(p.name for p in marks.iterdir()) == []


def test_the_check_tells_clean_from_changed_staged_and_untracked(hostile: tuple[Path, Path]) -> None:
    project, marks = hostile
    (project / "new.py").write_text("Y = 2\n")
    assert uncommitted(project, ["app.py", "other.py", "new.py"]) == ["new.py"]
    (project / "other.py").write_text("X = 2\n")
    assert uncommitted(project, ["app.py", "other.py"]) == ["other.py"]
    process = subprocess.run(["git", "-C", str(project), "config", "filter.evil.process"],
                             capture_output=True, text=True).stdout.strip()
    git(project, "config", "--unset", "filter.evil.process")  # a filter process that speaks no protocol
    git(project, "add", "new.py")  # runs the project's clean filter and hooks: the test's own doing
    git(project, "config", "filter.evil.process", process)
    for mark in marks.iterdir():
        mark.unlink()
    assert uncommitted(project, ["new.py"]) == ["new.py"]  # staged, not committed
    (project / "app.py").unlink()
    assert uncommitted(project, ["app.py"]) == ["app.py"]  # deleted on disk
    assert sorted(p.name for p in marks.iterdir()) == []


def test_a_subfolder_project_is_checked_against_its_repository(hostile: tuple[Path, Path]) -> None:
    project, marks = hostile
    (project / "pkg").mkdir()
    (project / "pkg" / "mod.py").write_text("Z = 1\n")
    assert uncommitted(project / "pkg", ["mod.py"]) == ["mod.py"]
    assert sorted(p.name for p in marks.iterdir()) == []
