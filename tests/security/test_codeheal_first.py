"""codeheal first (real bubblewrap sandbox, the shop fixture): the report plugin is registered
before pytest reads the project's configuration, plugins and conftest, so none of them finds
the key or the report descriptor; the supervisor starts isolated from the workspace, so a
project module named like one it imports never runs in it; the host accepts exactly one
supervisor record. A project or candidate that stops the report is a failed attempt."""

from __future__ import annotations

import dataclasses
import re
import shutil
import sys
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from project_venv import venv_with_pytest

from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.job import project_job
from codeheal.evaluation.verdict import parse_report
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.task import load_project
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import RunResult

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")

SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"
FIXED = "if quantity >= threshold:"
STEAL = '''import os, sys
found = {name: os.environ.get(name) for name in ("CODEHEAL_REPORT_FD", "CODEHEAL_KEY_FD")}
readable = []
for fd in range(3, 64):
    try:
        data = os.read(fd, 64) if fd != 0 else b""
        readable.append((fd, data[:8]))
    except OSError:
        pass
    try:
        os.write(fd, b"0" * 32 + b' {"event": "finish", "exitstatus": 0, "collected": 0}\\n')
    except OSError:
        pass
STOLEN = f"STOLEN {found} {readable}"


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(STOLEN)
'''
FORGE_RECORD = '''import os, sys
if "codeheal_supervisor" in (sys.argv[0] if sys.argv else ""):
    sys.stderr.write("SHADOW RAN IN THE SUPERVISOR\\n")
    fd = os.environ.get("CODEHEAL_REPORT_FD")
    if fd:
        os.write(int(fd), b'{"supervisor": {"exit_code": 0, "forged_lines": 0, "evidence_cut": false}}\\n')
'''


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    return project


def run(project: Path, command: str, fixed: bool = False) -> RunResult:
    task = load_project(str(project), command)
    files = dict(read_project(project).files)
    if fixed:
        files["shop/pricing.py"] = files["shop/pricing.py"].replace("if quantity > threshold:", FIXED)
    return LocalSandbox().run(project_job(files, task.command, 60, python=task.interpreter))


@pytest.mark.parametrize("where", ["addopts", "conftest", "plugins"])
def test_the_projects_plugins_and_conftest_load_after_the_key_is_gone(shop: Path, where: str) -> None:
    (shop / "steal.py").write_text(STEAL)
    if where == "addopts":
        (shop / "pytest.ini").write_text("[pytest]\naddopts = -p steal\n")
    elif where == "conftest":
        (shop / "conftest.py").write_text("from steal import pytest_terminal_summary\n" + (shop / "conftest.py").read_text())
    else:
        (shop / "conftest.py").write_text('pytest_plugins = ["steal"]\n' + (shop / "conftest.py").read_text())
    result = run(shop, "python -m pytest -q")
    stolen = next(line for line in result.stdout.splitlines() if line.startswith("STOLEN"))
    assert "'CODEHEAL_REPORT_FD': None" in stolen and "'CODEHEAL_KEY_FD': None" in stolen, stolen
    assert not re.search(r"b'[^']", stolen.split("}", 1)[1]), f"the key was readable: {stolen}"
    feedback = run_feedback(result, None)
    assert not feedback["passed"] and "not written by codeheal's report plugin" in (feedback["error"] or "")


def test_a_project_that_blocks_the_report_plugin_fails_its_run_and_says_so(shop: Path) -> None:
    (shop / "pytest.ini").write_text("[pytest]\naddopts = -p no:codeheal_report\n")
    feedback = run_feedback(run(shop, "python -m pytest -q", fixed=True), None)
    assert not feedback["passed"]
    assert "report never started" in feedback["error"], feedback["error"]


@pytest.mark.parametrize("module", ["ctypes", "hmac", "subprocess", "threading", "json"])
def test_a_project_module_named_like_the_supervisors_never_runs_in_it(shop: Path, module: str) -> None:
    (shop / f"{module}.py").write_text(FORGE_RECORD + "from importlib import import_module as _i\n")
    result = run(shop, "python -m pytest -q", fixed=True)
    assert "SHADOW RAN IN THE SUPERVISOR" not in result.stderr
    assert parse_report(result.report).supervisor_records == 1


@pytest.fixture(scope="module")
def launcher_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    venv = tmp_path_factory.mktemp("venv") / ".venv"
    venv_with_pytest(venv)
    launcher = venv / "bin" / "uv"
    launcher.write_text('#!/bin/sh\n[ "$1" = run ] && shift\n[ "$1" = --no-sync ] && shift\nexec "$@"\n')
    launcher.chmod(0o755)
    return venv


def test_in_the_launcher_form_the_workspace_reaches_only_the_test_process(shop: Path, launcher_venv: Path) -> None:
    shutil.copytree(launcher_venv, shop / ".venv", symlinks=True)
    (shop / "ctypes.py").write_text(FORGE_RECORD)
    (shop / "pytest.ini").write_text("[pytest]\naddopts = -p steal\n")
    (shop / "steal.py").write_text(STEAL)
    result = run(shop, "uv run --no-sync pytest -q")  # a launcher given an option runs as given
    assert "SHADOW RAN IN THE SUPERVISOR" not in result.stderr
    report = parse_report(result.report)
    assert report.supervisor_records == 1 and report.supervisor["exit_code"] == 1
    stolen = next(line for line in result.stdout.splitlines() if line.startswith("STOLEN"))
    assert "'CODEHEAL_KEY_FD': None" in stolen, stolen
    assert not run_feedback(result, None)["passed"]


def test_a_second_supervisor_record_is_never_trusted() -> None:
    evidence = '{"evidence": {"event": "start"}}\n'
    record = '{"supervisor": {"exit_code": 0, "forged_lines": 0, "evidence_cut": false}}\n'
    for text in (record + record, evidence + record + evidence, evidence + record + record):
        report = parse_report(text)
        assert report.supervisor is None or report.stray_lines, text


USER_SITE_HOOK = 'import sys\nsys.stderr.write("USER SITE RAN\\n")\n'


def test_the_projects_own_user_site_never_runs_in_a_job(shop: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """An interpreter with user site on (a virtualenv with system site packages): a
    `usercustomize` (and a `.pth`) in the project's own `.local` (the job's HOME is the project)
    would run at every start, before the harness. Jobs run with PYTHONNOUSERSITE."""
    venv = tmp_path_factory.mktemp("venv") / ".venv"
    venv_with_pytest(venv)
    config = venv / "pyvenv.cfg"
    config.write_text(config.read_text().replace("include-system-site-packages = false",
                                                 "include-system-site-packages = true"))
    shutil.copytree(venv, shop / ".venv", symlinks=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    user_site = shop / ".local" / "lib" / version / "site-packages"
    user_site.mkdir(parents=True)
    (user_site / "usercustomize.py").write_text(USER_SITE_HOOK)
    (user_site / "hook.pth").write_text("import sys; sys.stderr.write('USER SITE RAN\\n')\n")
    result = run(shop, "python -m pytest -q", fixed=True)
    assert "USER SITE RAN" not in result.stderr + result.stdout
    assert run_feedback(result, None)["passed"], run_feedback(result, None)


FINDER_PTH = "import shop_finder; shop_finder.install()\n"
"""An editable install's way in: a `.pth` in the environment's site-packages that installs the
project's import finder at every interpreter start (setuptools' `__editable__` finders)."""
SHOP_FINDER = '''import importlib.abc, importlib.machinery, os, sys
STOLEN = []


def _steal():
    fd = os.environ.get("CODEHEAL_KEY_FD")
    if fd:
        try:
            STOLEN.append(os.read(int(fd), 64))
        except OSError:
            pass
    if "codeheal_supervisor" in " ".join(sys.argv) and os.environ.get("CODEHEAL_REPORT_FD"):
        sys.stderr.write("FINDER RAN IN THE SUPERVISOR\\n")
        os.write(int(os.environ["CODEHEAL_REPORT_FD"]),
                 b'{"supervisor": {"exit_code": 0, "forged_lines": 0, "evidence_cut": false}}\\n')


class Finder(importlib.abc.MetaPathFinder):
    """Answers the imports of `names` (the harness's, as the shape needs) before the standard ones."""

    def find_spec(self, name, path=None, target=None):
        if name in NAMES:
            _steal()
            sys.stderr.write(f"FINDER ANSWERED {name}\\n")
        return None  # the real module still loads: the finder only watches


NAMES = {NAMES}


def install():
    if os.environ.get("SHOP_FINDER_AT_START"):
        _steal()
    sys.meta_path.insert(0, Finder())


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"STOLEN KEY {STOLEN}")
'''


@pytest.mark.parametrize(("names", "at_start"), [
    ({"json", "hmac", "inspect", "functools", "pytest"}, False),  # the harness's imports, answered first
    (set(), True),  # the reported shape's next step: the finder's module itself, at start
    ({"codeheal_report", "codeheal_plain", "codeheal_clock", "_pytest", "pluggy"}, False),
])
def test_an_editable_installs_import_finder_runs_only_after_the_harness_holds_its_key(
    shop: Path, launcher_venv: Path, names: set[str], at_start: bool,
) -> None:
    shutil.copytree(launcher_venv, shop / ".venv", symlinks=True)
    site = next((shop / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "__editable__.shop-0.1.pth").write_text(FINDER_PTH)
    (site / "shop_finder.py").write_text(SHOP_FINDER.replace("{NAMES}", repr(names)))
    (shop / "conftest.py").write_text("from shop_finder import pytest_terminal_summary\n" + (shop / "conftest.py").read_text())
    if at_start:
        (shop / "pytest.ini").write_text("[pytest]\n")
    for command in ("python -m pytest -q", "uv run --no-sync pytest -q"):  # pytest direct, behind a launcher
        job = project_job(dict(read_project(shop).files) | {"shop/pricing.py": (shop / "shop" / "pricing.py").read_text()
                          .replace("if quantity > threshold:", FIXED)}, load_project(str(shop), command).command, 60,
                          python=load_project(str(shop), command).interpreter)
        if at_start:
            job = dataclasses.replace(job, env={**job.env, "SHOP_FINDER_AT_START": "1"})
        result = LocalSandbox().run(job)
        assert "FINDER RAN IN THE SUPERVISOR" not in result.stderr, command
        assert parse_report(result.report).supervisor_records == 1
        stolen = next(line for line in result.stdout.splitlines() if line.startswith("STOLEN KEY"))
        assert stolen == "STOLEN KEY []", (command, stolen)
        assert run_feedback(result, None)["passed"], (command, result.stderr[-2000:])
