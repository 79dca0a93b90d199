"""Launchers as users have them: `uv run pytest ...` (or poetry, pdm, pipenv, rye) on a project
with its own environment, the launcher outside it (on the user's PATH, not in the sandbox), runs
as `python -m pytest ...` on that environment; a launcher in the environment, one given options,
or hatch, runs as given."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from project_venv import venv_with_pytest
from scripted_openai import ScriptedServer

from codeheal.cli import main
from codeheal.forms.project.task import on_environment, parse_test_command
from codeheal.sandboxes.base import SANDBOX_PATH


@pytest.mark.parametrize(("given", "runs"), [
    ("uv run pytest -q tests", ("python", "-m", "pytest", "-q", "tests")),
    ("poetry run python -m pytest -x", ("python", "-m", "pytest", "-x")),
    ("uv run --no-sync pytest -q", ("uv", "run", "--no-sync", "pytest", "-q")),
    ("uv run --frozen pytest -q", ("uv", "run", "--no-sync", "--frozen", "pytest", "-q")),  # never a sync
    ("uv run --frozen python -m pytest", ("uv", "run", "--no-sync", "--frozen", "python", "-m", "pytest")),
    ("hatch run pytest", ("hatch", "run", "pytest")),
    ("make test", ("make", "test")),
])
def test_a_launcher_that_only_chooses_the_environment_is_left_out_and_uv_never_syncs(
    given: str, runs: tuple[str, ...], tmp_path: Path,
) -> None:
    (tmp_path / "bin").mkdir()
    command = on_environment(parse_test_command(given), tmp_path / "bin" / "python")
    assert command.argv == runs
    if command.pytest_at is not None:  # pytest still found where its arguments start
        assert command.pytest_args == parse_test_command(given).pytest_args
    # the launcher in the environment too (uv installed in .venv would sync into it): the same
    (tmp_path / "bin" / given.split()[0]).write_text("#!/bin/sh\n")
    assert on_environment(parse_test_command(given), tmp_path / "bin" / "python").argv == runs


SYNCING_UV = "#!/bin/sh\necho 'error: failed to sync: Read-only file system (os error 30)' >&2\nexit 2\n"
"""uv installed in the project's environment, which would sync into it (read-only in the sandbox)."""


def _calc(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "tests").mkdir(parents=True)
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (project / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    (project / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    venv_with_pytest(project / ".venv")
    return project


def _fix(tmp_path: Path, project: Path, command: str) -> int:
    with ScriptedServer(lambda body: "no call expected") as server:
        code = main(["fix", str(project), "--test", command, "--model", "scripted", "--base-url",
                     server.url, "--checkpointer", str(tmp_path / "c.sqlite")])
        assert server.requests == []
    return code


@pytest.mark.parametrize("uv_in_venv", [False, True])
def test_fix_heals_with_uv_run_on_a_project_venv_wherever_uv_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], uv_in_venv: bool,
) -> None:
    project = _calc(tmp_path)
    if uv_in_venv:
        (project / ".venv" / "bin" / "uv").write_text(SYNCING_UV)
        (project / ".venv" / "bin" / "uv").chmod(0o755)
    code = _fix(tmp_path, project, "uv run pytest -q")
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-    return a - b\n+    return a + b\n" in out
    assert "failed to sync" not in err


@pytest.mark.skipif(shutil.which("uv", path=SANDBOX_PATH) is not None, reason="uv is on the sandbox's PATH here")
def test_uv_run_with_options_and_no_uv_in_the_sandbox_stops_before_any_model_call_naming_what_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _calc(tmp_path)
    code = _fix(tmp_path, project, "uv run --frozen pytest -q tests")
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert "'uv' is not installed" in err and "give 'python -m pytest -q tests'" in err, err
