"""--apply writes the attempt that passed, all or nothing, says the truth on a resumed write,
shows the change before writing it, and leaves no staged file behind."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from codeheal.forms.project import diff
from codeheal.forms.project.diff import DirtyTreeError, write_changes
from codeheal.rules import best_attempt

ORIGINALS = {"a.py": "A = 1\n", "pkg/b.py": "B = 1\n"}
CHANGED = {"a.py": "A = 2\n", "pkg/b.py": "B = 2\n"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for path, text in ORIGINALS.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


def contents(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text() for p in root.rglob("*") if p.is_file()}


def attempt(n: int, passed: bool, passed_count: int, total: int) -> dict:
    return {"attempt": n, "code": f"v{n}", "summary": "", "passed": passed, "passed_count": passed_count,
            "total": total, "reflection": None, "tokens": 0, "prompt_tokens": 0, "completion_tokens": 0,
            "seconds": 0.0}


def test_the_attempt_that_passed_is_the_one_kept_even_with_fewer_checks() -> None:
    # attempt 1 passed 9 of 12 (three of its tests were skipped, say); attempt 2 passed all 8
    history = [attempt(1, False, 9, 12), attempt(2, True, 8, 8), attempt(3, False, 8, 12)]
    assert best_attempt(history)["attempt"] == 2


def test_an_interrupt_while_staging_writes_nothing_and_leaves_nothing(project: Path, monkeypatch) -> None:
    real_stage = diff._stage

    def stage_then_interrupt(target: Path, text: str) -> Path:
        staged = real_stage(target, text)
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C after the first file is staged
        return staged

    monkeypatch.setattr(diff, "_stage", stage_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        write_changes(project, CHANGED, originals=ORIGINALS)
    assert contents(project) == ORIGINALS


def test_an_interrupt_while_renaming_is_held_until_every_file_is_in_place(project: Path, monkeypatch) -> None:
    real_replace = os.replace
    calls = []

    def replace_then_interrupt(source, target) -> None:
        real_replace(source, target)
        calls.append(target)
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C between the two renames

    monkeypatch.setattr(diff.os, "replace", replace_then_interrupt)
    # another thread running: the kernel may hand it the signal (a blocked mask is per thread)
    threading.Thread(target=time.sleep, args=(1.0,), daemon=True).start()
    with pytest.raises(KeyboardInterrupt):
        write_changes(project, CHANGED, originals=ORIGINALS)
    assert contents(project) == CHANGED


def test_a_write_cut_short_is_finished_on_resume_and_reported_exactly(project: Path) -> None:
    (project / "a.py").write_text(CHANGED["a.py"])  # the first rename happened, then a kill
    written = write_changes(project, CHANGED, originals=ORIGINALS)
    assert [p.relative_to(project).as_posix() for p in written] == ["a.py", "pkg/b.py"]
    assert contents(project) == CHANGED


def test_a_file_changed_by_someone_else_still_stops_the_write(project: Path) -> None:
    (project / "a.py").write_text("A = 'edited by hand'\n")
    with pytest.raises(DirtyTreeError, match="a.py changed since codeheal read the project; nothing was written"):
        write_changes(project, CHANGED, originals=ORIGINALS)
    assert (project / "pkg" / "b.py").read_text() == ORIGINALS["pkg/b.py"]


def test_staged_files_a_kill_left_behind_are_removed_by_the_next_write(project: Path) -> None:
    leftover = project / "pkg" / ".b.py.x1y2z3.codeheal"
    leftover.write_text("half")
    write_changes(project, CHANGED, originals=ORIGINALS)
    assert not leftover.exists()
    assert contents(project) == CHANGED


def test_a_killed_write_leaves_the_project_whole(project: Path) -> None:
    """A real SIGKILL at a random point of the write: afterwards every file holds either its
    original or its change, and the next write finishes it."""
    script = (
        "import sys\nfrom codeheal.forms.project.diff import write_changes\n"
        f"write_changes({str(project)!r}, {CHANGED!r}, originals={ORIGINALS!r})\n"
    )
    process = subprocess.Popen([os.sys.executable, "-c", script])
    process.kill()
    process.wait()
    for path in CHANGED:
        assert (project / path).read_text() in (ORIGINALS[path], CHANGED[path])
    write_changes(project, CHANGED, originals=ORIGINALS)
    assert contents(project) == CHANGED


def test_the_cli_shows_the_change_before_it_writes_it(tmp_path: Path, capsys) -> None:
    import shutil

    from scripted_openai import ScriptedServer, is_fix_actor

    from codeheal.cli import main

    shop = tmp_path / "shop"
    shutil.copytree(Path(__file__).parents[1] / "project" / "fixtures" / "shop", shop)
    fixed = ("```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n"
             '    """Percent off for buying `quantity` of one item."""\n'
             "    for threshold, percent in DISCOUNT_TIERS:\n        if quantity >= threshold:\n"
             "            return percent\n    return 0\n```\n")
    with ScriptedServer(lambda body: fixed if is_fix_actor(body["messages"]) else "use >=") as server:
        code = main(["fix", str(shop), "--test", "python -m pytest -q", "--model", "scripted", "--base-url", server.url,
                     "--checkpointer", str(tmp_path / "c.sqlite"), "--apply"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "+        if quantity >= threshold:" in err
    assert err.index("the change to write into the project") < err.index("wrote ")
