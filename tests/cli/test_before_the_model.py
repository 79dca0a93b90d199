"""Every check that can be made before the first model call is made then: a sandbox that cannot
start (E2B without a key: exit 2; bubblewrap missing: exit 3), `fix --apply` on files with
uncommitted changes, a test command whose program is not installed. Each is asserted on a real
`codeheal` run against the scripted OpenAI server, which must have received no request; the
messages name the remedy for how codeheal was installed (codeheal.install)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from scripted_openai import ADD_TASK, ADD_TESTS, ScriptedServer, heal_add

from codeheal import install
from codeheal.cli import main

SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"


def _solve(server: ScriptedServer, tmp_path: Path, *flags: str) -> int:
    tests = tmp_path / "test_add.py"
    tests.write_text(ADD_TESTS, encoding="utf-8")
    return main(["solve", ADD_TASK, "--tests", str(tests), "--model", "scripted", "--base-url", server.url,
                 "--checkpointer", str(tmp_path / "c.sqlite"), *flags])


def _shop(tmp_path: Path) -> Path:
    """The shop fixture as a git repository with everything committed."""
    shop = tmp_path / "shop"
    shutil.copytree(SHOP, shop)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "shop"]):
        subprocess.run(command, cwd=shop, check=True, env=env)
    return shop


def _fix(server: ScriptedServer, tmp_path: Path, project: Path, *flags: str) -> int:
    return main(["fix", str(project), "--model", "scripted", "--base-url", server.url,
                 "--checkpointer", str(tmp_path / "c.sqlite"), *flags])


def test_e2b_without_a_key_exits_2_before_any_model_call(tmp_path, monkeypatch, capsys) -> None:
    pytest.importorskip("e2b")
    for name in ("E2B_API_KEY", "E2B_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    with ScriptedServer(heal_add) as server:
        assert _solve(server, tmp_path, "--sandbox", "e2b") == 2
    assert server.requests == []
    assert "E2B_API_KEY is not set" in capsys.readouterr().err


@pytest.mark.parametrize(("method", "make_system"), [("pipx", False), ("uv tool", False), ("clone", True)])
def test_bubblewrap_missing_exits_3_before_any_model_call_naming_the_remedy_for_the_install(
        tmp_path, monkeypatch, capsys, method, make_system) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("prlimit", "setpriv"):  # util-linux there, bubblewrap not
        (tools / tool).symlink_to(shutil.which(tool))
    monkeypatch.setenv("PATH", str(tools))
    monkeypatch.setattr(install, "install_method", lambda *args, **kwargs: method)
    with ScriptedServer(heal_add) as server:
        assert _solve(server, tmp_path) == 3
    assert server.requests == []
    err = " ".join(capsys.readouterr().err.split())
    assert "bubblewrap (bwrap) is not on PATH" in err and "sudo apt-get install bubblewrap" in err
    assert ("make system" in err) == make_system


def test_fix_apply_on_uncommitted_source_is_refused_before_any_model_call(tmp_path, capsys) -> None:
    shop = _shop(tmp_path)
    pricing = shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n# a change of the user's\n")
    before = pricing.read_text()
    with ScriptedServer(heal_add) as server:
        assert _fix(server, tmp_path, shop, "--test", "python -m pytest -q", "--apply") == 2
    assert server.requests == []
    err = " ".join(capsys.readouterr().err.split())
    assert "--apply: shop/pricing.py has uncommitted changes" in err and "nothing was run" in err
    assert "kept on thread" not in err  # nothing was healed, so nothing waits on the thread
    assert pricing.read_text() == before


def test_fix_apply_with_only_a_test_file_changed_goes_ahead(tmp_path, capsys) -> None:
    """The start's rule covers the files a repair may write, not the tests (read-only to it)."""
    shop = _shop(tmp_path)
    test_file = shop / "tests" / "test_cart.py"
    test_file.write_text(test_file.read_text() + "\n# a change of the user's\n")
    with ScriptedServer(heal_add) as server:
        _fix(server, tmp_path, shop, "--test", "python -m pytest -q", "--apply", "--max-attempts", "1")
    assert "uncommitted" not in capsys.readouterr().err


def test_a_test_command_whose_program_is_not_installed_is_refused_before_any_model_call(tmp_path, capsys) -> None:
    shop = _shop(tmp_path)
    with ScriptedServer(heal_add) as server:
        assert _fix(server, tmp_path, shop, "--test", "no-such-test-runner -q") == 2
    assert server.requests == []
    assert "'no-such-test-runner' is not installed" in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(("marker", "method", "command"), [
    ("pipx_metadata.json", "pipx", "pipx install --force 'codeheal[local]'"),
    ("uv-receipt.toml", "uv tool", "uv tool install --force 'codeheal[local]'"),
    ("pyvenv.cfg", "venv", "-m pip install 'codeheal[local]'"),
])
def test_the_install_method_is_told_from_the_prefix(tmp_path, marker, method, command) -> None:
    (tmp_path / marker).write_text("")
    assert install.install_method(str(tmp_path), source=tmp_path / "site-packages") == method
    assert command in install.extra_command("local", method)


def test_a_clone_is_told_by_its_makefile(tmp_path) -> None:
    for name in ("Makefile", "pyproject.toml"):
        (tmp_path / name).write_text("")
    assert install.install_method(str(tmp_path / "venv"), source=tmp_path) == "clone"
    assert install.install_method(str(tmp_path / "venv"), source=tmp_path / "elsewhere") == "pip"
