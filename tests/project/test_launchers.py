"""Launchers as users have them: `uv run pytest ...` (or poetry, pdm, pipenv, rye) on a project
with its own environment, the launcher outside it (on the user's PATH, not in the sandbox), runs
as `python -m pytest ...` on that environment; a launcher in the environment, one given options,
or hatch, runs as given."""

from __future__ import annotations

from pathlib import Path

import pytest
from project_venv import venv_with_pytest
from scripted_openai import ScriptedServer

from codeheal.cli import main
from codeheal.forms.project.task import on_environment, parse_test_command


@pytest.mark.parametrize(("given", "runs"), [
    ("uv run pytest -q tests", ("python", "-m", "pytest", "-q", "tests")),
    ("poetry run python -m pytest -x", ("python", "-m", "pytest", "-x")),
    ("uv run --no-sync pytest -q", ("uv", "run", "--no-sync", "pytest", "-q")),
    ("hatch run pytest", ("hatch", "run", "pytest")),
    ("make test", ("make", "test")),
])
def test_a_launcher_that_only_chooses_the_environment_is_left_out(
    given: str, runs: tuple[str, ...], tmp_path: Path,
) -> None:
    (tmp_path / "bin").mkdir()
    assert on_environment(parse_test_command(given), tmp_path / "bin" / "python").argv == runs
    (tmp_path / "bin" / given.split()[0]).write_text("#!/bin/sh\n")  # the launcher in the environment: as given
    assert on_environment(parse_test_command(given), tmp_path / "bin" / "python").argv == tuple(given.split())


def test_fix_heals_with_uv_run_on_a_project_venv_and_no_uv_in_the_sandbox(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (project / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    venv_with_pytest(project / ".venv")
    with ScriptedServer(lambda body: "no call expected") as server:
        code = main(["fix", str(project), "--test", "uv run pytest -q", "--model", "scripted", "--base-url",
                     server.url, "--checkpointer", str(tmp_path / "c.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-    return a - b\n+    return a + b\n" in out
