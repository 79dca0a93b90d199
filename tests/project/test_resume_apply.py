"""`codeheal resume THREAD --apply`: a fix run cut short goes on and writes its change when the
tests pass, in every output format, refused as `fix --apply` is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles import SHOP_FIXED
from scripted_openai import (
    ADD_TASK,
    ADD_TESTS,
    Script,
    ScriptedServer,
    heal_add,
    is_fix_actor,
)
from test_fix import LESSON, TEST, git, run_cli, shop  # noqa: F401 (shop: the fixture)

from codeheal.cli import EXIT_BAD_INPUT, EXIT_INFRASTRUCTURE, _parser


def heal(body: dict) -> str:
    return SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON


def cut_short(capsys, db: Path, *command: str) -> None:
    """Start `command` on thread t1 against a server that rejects the key: the run stops at
    its first model call, unfinished."""
    with ScriptedServer(error=(401, "invalid api key")) as down:
        code, out, err = run_cli(capsys, *command, "--model", "scripted", "--base-url", down.url,
                                 "--thread", "t1", "--checkpointer", str(db))
    assert code == EXIT_INFRASTRUCTURE and out == "", err


def cut_short_fix(capsys, project: Path, db: Path) -> None:
    cut_short(capsys, db, "fix", str(project), "--test", TEST, "--mutants", "0")


def resume(capsys, db: Path, *flags: str, script: Script = heal) -> tuple[int, str, str]:
    with ScriptedServer(script) as server:
        return run_cli(capsys, "resume", "t1", *flags, "--model", "scripted", "--base-url", server.url,
                       "--checkpointer", str(db))


@pytest.mark.parametrize("output", [[], ["--json"], ["--format", "github"]], ids=["diff", "json", "github"])
def test_resume_apply_writes_the_healed_change(shop: Path, tmp_path: Path, capsys, output: list[str]) -> None:
    db = tmp_path / "c.sqlite"
    pricing = shop / "shop" / "pricing.py"
    cut_short_fix(capsys, shop, db)
    assert git(shop, "status", "--porcelain") == ""
    code, out, err = resume(capsys, db, "--apply", *output)
    assert code == 0, err
    assert "if quantity >= threshold:" in pricing.read_text()
    assert git(shop, "status", "--porcelain") == " M shop/pricing.py\n"
    assert f"wrote{pricing}" in "".join(err.split())  # rich wraps the long path
    if output == ["--json"]:
        result = json.loads(out)
        assert result["status"] == "passed" and result["files_written"] == [str(pricing)]
    elif output == []:
        assert out.startswith("--- a/shop/pricing.py\n") and "+        if quantity >= threshold:" in out
    else:
        assert out.startswith("::error file=shop/pricing.py,line="), out


def test_resume_without_apply_writes_nothing(shop: Path, tmp_path: Path, capsys) -> None:
    db = tmp_path / "c.sqlite"
    cut_short_fix(capsys, shop, db)
    code, out, err = resume(capsys, db)
    assert code == 0, err
    assert "+        if quantity >= threshold:" in out and git(shop, "status", "--porcelain") == ""


def test_resume_apply_refuses_a_dirty_file_and_keeps_the_change_for_a_later_resume(
    shop: Path, tmp_path: Path, capsys
) -> None:
    db = tmp_path / "c.sqlite"
    pricing = shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n# work in progress\n")
    cut_short_fix(capsys, shop, db)
    code, out, err = resume(capsys, db, "--apply")
    flat = " ".join(err.split())
    assert code == EXIT_BAD_INPUT and out == ""
    assert "shop/pricing.py has uncommitted changes; nothing was written" in flat
    assert "once the files are committed, `codeheal resume t1` writes it" in flat and "Traceback" not in err
    assert "if quantity >= threshold:" not in pricing.read_text()
    git(shop, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qam", "work in progress")
    code, out, err = resume(capsys, db)
    assert code == 0, err
    assert "if quantity >= threshold:" in pricing.read_text() and pricing.read_text().endswith("# work in progress\n")


def test_resume_apply_force_writes_over_uncommitted_changes_even_after_a_refusal(shop: Path, tmp_path: Path, capsys) -> None:
    db = tmp_path / "c.sqlite"
    pricing = shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n# work in progress\n")
    cut_short_fix(capsys, shop, db)
    assert resume(capsys, db, "--apply")[0] == EXIT_BAD_INPUT  # refused: the change waits on the thread
    code, _, err = resume(capsys, db, "--apply", "--force")
    assert code == 0, err
    assert "if quantity >= threshold:" in pricing.read_text() and pricing.read_text().endswith("# work in progress\n")


def test_resume_apply_of_a_solve_thread_and_force_alone_are_refused(tmp_path: Path, capsys) -> None:
    db = tmp_path / "c.sqlite"
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    cut_short(capsys, db, "solve", ADD_TASK, "--tests", str(tests))
    code, out, err = resume(capsys, db, "--apply")
    assert code == EXIT_BAD_INPUT and out == "" and "thread t1 is a solve run" in " ".join(err.split())
    code, _, err = resume(capsys, db, "--force")
    assert code == EXIT_BAD_INPUT and "--force only makes sense with --apply" in err
    code, out, err = resume(capsys, db, script=heal_add)
    assert code == 0 and out.strip() == "def add(a, b):\n    return a + b", err


def test_resume_parses_apply_and_force() -> None:
    args = _parser().parse_args(["resume", "t1", "--apply", "--force", "--format", "github"])
    assert args.apply and args.force and args.format == "github"
