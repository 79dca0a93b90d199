"""The test process starts path-isolated (real bubblewrap sandbox, the shop fixture): codeheal's
harness is loaded by its absolute path and reads its key before the workspace joins
`sys.path`, so no project module named like one the harness imports, and no package named
like the harness, runs before it, in the direct and the launcher form. Whether a run must
report is fixed from the command before it runs: one that should have reported and did not
fails, whatever its exit code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from project_venv import venv_with_pytest

from codeheal.evaluation.verdict import parse_report
from codeheal.forms.project import job
from codeheal.forms.project.job import project_job
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.task import load_project, parse_test_command
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import RunResult
from codeheal.state import Feedback

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")

SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"
BUG, FIX = "if quantity > threshold:", "if quantity >= threshold:"
SHADOW = '''import os, sys
sys.stderr.write("SHADOW {name} RAN key=%s\\n" % os.environ.get("CODEHEAL_KEY_FD"))
fd = os.environ.get("CODEHEAL_KEY_FD")
if fd:
    key = os.read(int(fd), 4096)
    sys.stderr.write("SHADOW STOLE THE KEY %r\\n" % key)
'''
SILENCE = '''import atexit, os
os.environ.pop("CODEHEAL_REPORT_FD", None)
os.environ.pop("CODEHEAL_KEY_FD", None)
os.write(2, b"SILENCER RAN\\n")
atexit.register(os._exit, 0)
'''
CLOSING_UV = """#!{python}
# a `uv` that starts the command as a Python subprocess: inherited descriptors closed
import subprocess, sys
args = sys.argv[2:] if sys.argv[1:2] == ["run"] else sys.argv[1:]
args = args[1:] if args[:1] == ["--no-sync"] else args
sys.exit(subprocess.run(args).returncode)
"""
EXEC_UV = '#!/bin/sh\n[ "$1" = run ] && shift\n[ "$1" = --no-sync ] && shift\nexec "$@"\n'
LAUNCHED = "uv run --no-sync pytest -q"
"""pytest behind the launcher (`uv run pytest -q` would run pytest on the environment directly)."""


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv") / ".venv"
    venv_with_pytest(venv)
    return venv


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    return project


def with_venv(project: Path, venv: Path, uv: str) -> None:
    """The project with a virtualenv of its own (inside it, as `uv` makes one) holding a `uv`."""
    shutil.copytree(venv, project / ".venv", symlinks=True)
    launcher = project / ".venv" / "bin" / "uv"
    launcher.write_text(uv.format(python=project / ".venv" / "bin" / "python"))
    launcher.chmod(0o755)


def judged(project: Path, command: str, fixed: bool) -> tuple[Feedback, RunResult]:
    """The project form's verdict on `command` (job.judged), the pricing bug fixed or not."""
    task = load_project(str(project), command)
    files = dict(read_project(project).files)
    if fixed:
        files["shop/pricing.py"] = files["shop/pricing.py"].replace(BUG, FIX)
    result = LocalSandbox().run(project_job(files, task.command, 60, python=task.interpreter))
    return job.judged(result, task.command, files, None), result


SHADOWED = ["inspect", "json", "functools", "threading", "unittest", "time", "importlib",
            "codeheal_pytest/__init__", "codeheal_report/__init__", "codeheal_plain/__init__"]


@pytest.mark.parametrize("command", ["python -m pytest -q", "pytest -q", LAUNCHED])
def test_no_project_module_named_like_the_harnesss_runs_before_it(shop: Path, venv: Path, command: str) -> None:
    for name in SHADOWED:
        path = shop / f"{name}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(SHADOW.format(name=name))
    if command.startswith("uv"):
        with_venv(shop, venv, EXEC_UV)
    for fixed in (False, True):
        feedback, result = judged(shop, command, fixed)
        assert "SHADOW" not in result.stderr + result.stdout, result.stderr[-2000:]
        assert parse_report(result.report).supervisor_records == 1
        assert feedback["passed"] is fixed, feedback["error"]
        assert (feedback["total"], feedback["passed_count"]) == ((12, 12) if fixed else (12, 8))


def test_the_tests_still_import_the_project_from_its_root(shop: Path) -> None:
    (shop / "tests" / "test_path.py").write_text(
        "import os, sys\n\n\ndef test_root_on_the_path():\n"
        "    assert os.path.realpath(os.getcwd()) in [os.path.realpath(p) for p in sys.path]\n"
    )
    feedback, _ = judged(shop, "python -m pytest -q", True)
    assert feedback["passed"] and feedback["total"] == 13, feedback["error"]


def test_a_workspace_sitecustomize_never_runs_under_a_launcher(shop: Path, venv: Path) -> None:
    with_venv(shop, venv, EXEC_UV)
    (shop / "sitecustomize.py").write_text(SILENCE)
    (shop / "usercustomize.py").write_text(SILENCE)
    feedback, result = judged(shop, LAUNCHED, False)
    assert "SILENCER RAN" not in result.stderr
    assert not feedback["passed"] and (feedback["total"], feedback["passed_count"]) == (12, 8)


@pytest.mark.parametrize("fixed", [False, True])
def test_a_run_that_must_report_and_did_not_fails_whatever_its_exit_code(shop: Path, venv: Path, fixed: bool) -> None:
    with_venv(shop, venv, CLOSING_UV)
    feedback, result = judged(shop, LAUNCHED, fixed)
    assert result.exit_code == (0 if fixed else 1) or parse_report(result.report).supervisor is not None
    assert not feedback["passed"]
    assert "report never started" in (feedback["error"] or ""), feedback["error"]


@pytest.mark.parametrize(("command", "reports"), [
    ("pytest -q", True), ("python -m pytest -q", True), ("python3.11 -m pytest tests", True),
    ("uv run pytest -q", True), ("poetry run python -m pytest", True), ("pipenv run pytest", True),
    ("rye run pytest", True), ("hatch run pytest -q", False), ("pdm run pytest", False), ("make test", False),
    ("tox -e py", False), ("python -m unittest", False), ("sh run-tests.sh", False),
])
def test_whether_a_run_must_report_is_fixed_from_the_command(command: str, reports: bool) -> None:
    parsed = parse_test_command(command)
    assert parsed.reports is reports
    assert project_job({"a.py": ""}, parsed, 10).report is reports
