"""Any test command finds `python` and `python3` as the test interpreter inside the sandbox
(a project without a virtualenv, on a host that may have no `python`), and a command that
cannot run shows its own error line (make's, not only its "Error 127")."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_openai import ScriptedServer

from codeheal.cli import main

CALC = "def add(a, b):\n    return a + b\n"
TESTS = """import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)
"""


@pytest.fixture
def calc(tmp_path: Path, monkeypatch) -> Path:
    """A passing unittest project with no virtualenv of its own (and none active)."""
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    project = tmp_path / "calc"
    project.mkdir()
    (project / "calc.py").write_text(CALC)
    (project / "test_calc.py").write_text(TESTS)
    (project / "Makefile").write_text("test:\n\tpython -m unittest -v\n\tpython3 -c 'import calc'\n")
    return project


def fix(project: Path, tmp_path: Path, capsys, command: str, *flags: str) -> tuple[int, str]:
    with ScriptedServer(lambda body: pytest.fail("no model call for passing tests")) as server:
        code = main(["fix", str(project), "--test", command, "--model", "scripted", "--base-url", server.url,
                     "--checkpointer", str(tmp_path / "c.sqlite"), *flags])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("isolation", ["bwrap", "basic"])
@pytest.mark.parametrize("command", ["python -m unittest", "python3 -m unittest -v", "make test"])
def test_python_is_the_test_interpreter_for_any_command(
    calc: Path, tmp_path: Path, capsys, command: str, isolation: str,
) -> None:
    code, err = fix(calc, tmp_path, capsys, command, "--isolation", isolation)
    assert code == 0, err
    assert "nothing to change" in err


def test_a_command_that_cannot_run_shows_makes_own_error(calc: Path, tmp_path: Path, capsys) -> None:
    (calc / "Makefile").write_text("test:\n\tno-such-tool --run\n")
    code, err = fix(calc, tmp_path, capsys, "make test")
    assert code == 2
    flat = " ".join(err.split())
    assert "no-such-tool" in flat and "Error 127" in flat
