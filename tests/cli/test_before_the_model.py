"""Every check that can be made before the first model call is made then: a sandbox that cannot
start (E2B without a key: exit 2; bubblewrap missing: exit 3), `fix --apply` on files with
uncommitted changes, a test command whose program is not installed. Each is asserted on a real
`codeheal` run against the scripted OpenAI server, which must have received no request; the
messages name the remedy for how codeheal was installed (codeheal.install)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
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
def test_the_install_method_is_told_from_the_prefix(tmp_path, marker, method, command, monkeypatch) -> None:
    monkeypatch.setattr(install, "install_source", lambda: None)  # from the package index
    (tmp_path / marker).write_text("")
    assert install.install_method(str(tmp_path), source=tmp_path / "site-packages") == method
    assert command in install.extra_command("local", method)


def test_a_clone_is_told_by_its_makefile(tmp_path) -> None:
    for name in ("Makefile", "pyproject.toml"):
        (tmp_path / name).write_text("")
    assert install.install_method(str(tmp_path / "venv"), source=tmp_path) == "clone"
    assert install.install_method(str(tmp_path / "venv"), source=tmp_path / "elsewhere") == "pip"


WHEEL_URL = '{"url": "file:///home/me/dist/codeheal-0.1.0-py3-none-any.whl", "archive_info": {}}'


@pytest.mark.parametrize(("direct_url", "source"), [
    (WHEEL_URL, "/home/me/dist/codeheal-0.1.0-py3-none-any.whl"),
    ('{"url": "file:///home/me/code%20heal", "dir_info": {"editable": false}}', "/home/me/code heal"),
    ('{"url": "https://github.com/me/codeheal.git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}',
     "git+https://github.com/me/codeheal.git@abc123"),
    ("", None),
])
def test_where_codeheal_came_from_is_read_from_its_direct_url(direct_url: str, source: str | None) -> None:
    assert install.install_source(direct_url) == source


def test_a_remedy_installs_codeheal_from_where_it_came_not_from_an_index_that_lacks_it(
    tmp_path, monkeypatch
) -> None:
    wheel = tmp_path / "codeheal-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    monkeypatch.setattr(install, "install_source", lambda: str(wheel))
    assert install.extra_command("local", "pipx") == f"pipx install --force '{wheel}[local]'"
    assert install.extra_command("lsp", "uv tool") == f"uv tool install --force '{wheel}[lsp]'"
    assert install.package_command("x==1", "uv tool") == f"uv tool install --force {wheel} --with x==1"
    assert install.extra_command("local", "pip") == f"pip install '{wheel}[local]'"
    wheel.unlink()  # the wheel is gone: the extra's own packages, into the installation as it is
    pipx = install.extra_command("local", "pipx")
    assert pipx.startswith("pipx inject codeheal xllamacpp==") and "codeheal[" not in pipx and str(wheel) not in pipx
    assert install.package_command("x==1", "uv tool") == f"uv pip install --python {sys.executable} x==1"
    monkeypatch.setattr(install, "install_source", lambda: "git+https://github.com/me/codeheal.git@abc123")
    assert install.extra_command("local", "pipx") == (
        "pipx install --force 'codeheal[local] @ git+https://github.com/me/codeheal.git@abc123'")
