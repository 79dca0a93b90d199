"""The bubblewrap command line: what is hidden, and what is bound back for the interpreter."""

from __future__ import annotations

import pytest

from codeheal.sandboxes import bwrap


def argv_for(monkeypatch: pytest.MonkeyPatch, prefixes: tuple[str, ...]) -> list[str]:
    monkeypatch.setattr(bwrap, "python_prefixes", lambda python: prefixes)
    return bwrap.bwrap_argv("bwrap", workspace="/tmp/codeheal-x", python="/py", python_args=["-V"],
                            env={}, uid=None)


def test_a_virtualenv_under_tmp_is_bound_back_after_the_private_tmp(monkeypatch: pytest.MonkeyPatch) -> None:
    # CI may clone the project (and its .venv) under /tmp, which the sandbox replaces.
    argv = argv_for(monkeypatch, ("/tmp/clone/.venv", "/usr"))
    private_tmp = argv.index("/tmp", argv.index("--tmpfs"))
    bind = argv.index("/tmp/clone/.venv")
    assert argv[bind - 1] == "--ro-bind" and bind > private_tmp
    assert argv[argv.index("/tmp/clone") - 1] == "--dir"  # traversable by the job uid
    assert argv.index(bwrap.WORKSPACE) > bind


def test_the_private_tmp_binds_nothing_back_for_an_interpreter_elsewhere(monkeypatch: pytest.MonkeyPatch) -> None:
    argv = argv_for(monkeypatch, ("/usr",))
    assert [a for a in argv if a.startswith("/tmp")] == ["/tmp", "/tmp/codeheal-x", bwrap.WORKSPACE, bwrap.WORKSPACE]
