"""Every kind of test command, run for real in the bubblewrap sandbox on the shop fixture (4 of
its 12 checks fail): pytest behind a launcher keeps the report plugin's per-test feedback; a
command codeheal cannot see inside (`make test`, `python -m unittest`, `tox`, a shell script)
is judged by its exit code, with the failures read from its output.

uv, poetry, hatch and tox are not installed here: small stand-ins in the project's virtualenv
(on the job's PATH inside the sandbox) do what each does with the command, so the launcher
runs inside the sandbox, as a real one would. The hatch and tox stand-ins start pytest as a
Python subprocess, which closes inherited descriptors (tox also empties the environment), as
the real tools do."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.tracebacks import output_feedback
from codeheal.forms.project.job import project_job
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.task import load_project, parse_test_command
from codeheal.sandboxes import LocalSandbox
from codeheal.state import Feedback
from project_venv import venv_with_pytest

SHOP = Path(__file__).with_name("fixtures") / "shop"
EXEC_LAUNCHER = """#!/bin/sh
# stand-in for `{name} run`: the rest of the command, in this environment (exec keeps descriptors)
[ "$1" = run ] && shift
exec "$@"
"""
SUBPROCESS_LAUNCHER = """#!{python}
# stand-in for `{name}`: pytest as a Python subprocess (descriptors closed{scrub})
import os, subprocess, sys
args = sys.argv[1:]
if args[:1] == ["run"]:
    args = args[1:]
if args[:1] in (["test"], ["-e"], []):  # a script alias or an environment: its command is pytest
    args = ["python", "-m", "pytest", "-q"]
env = {env}
sys.exit(subprocess.run(args, env=env).returncode)
"""
UNITTEST_SHOP = '''import unittest

from shop.pricing import bulk_discount


class TestTiers(unittest.TestCase):
    def test_tier_starts_at_its_threshold(self):
        self.assertEqual(bulk_discount(10), 10)

    def test_a_few(self):
        self.assertEqual(bulk_discount(3), 0)
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop fixture with a virtualenv of its own (pytest installed in it), the launcher stand-ins in its bin/, a Makefile, a unittest module
    and a shell script."""
    root = tmp_path_factory.mktemp("launchers") / "shop"
    shutil.copytree(SHOP, root)
    venv = root / ".venv"
    venv_with_pytest(venv)
    python = venv / "bin" / "python"
    scripts = {
        "pytest": f"#!{python}\nimport sys\nfrom pytest import console_main\nsys.exit(console_main())\n",
        "uv": EXEC_LAUNCHER.format(name="uv"),
        "poetry": EXEC_LAUNCHER.format(name="poetry"),
        "hatch": SUBPROCESS_LAUNCHER.format(python=python, name="hatch", scrub="", env="None"),
        "tox": SUBPROCESS_LAUNCHER.format(
            python=python, name="tox", scrub=", environment emptied",
            env='{"PATH": os.environ["PATH"], "PYTHONPATH": os.environ.get("PYTHONPATH", "")}',
        ),
    }
    for name, text in scripts.items():
        path = venv / "bin" / name
        path.write_text(text)
        path.chmod(0o755)
    (root / "Makefile").write_text("test:\n\tpython -m pytest -q\n")
    (root / "run-tests.sh").write_text("#!/bin/sh\nset -e\necho running the tests\npython -m pytest -q \"$@\"\n")
    (root / "unit").mkdir()
    (root / "unit" / "__init__.py").write_text("")
    (root / "unit" / "tiers.py").write_text(UNITTEST_SHOP)  # not a pytest test file
    return root


def run(project: Path, command: str) -> tuple[Feedback, bool]:
    """The Feedback of `command` on the project as the evaluator forms it, and whether the
    run had to report (then its report decides)."""
    task = load_project(str(project), command)
    files = read_project(project).files
    job = project_job(files, task.command, 60, python=task.interpreter)
    result = LocalSandbox().run(job)
    assert result.isolation == "bwrap"
    assert job.report == task.command.reports
    if task.command.reports:
        return run_feedback(result, None), True
    return output_feedback(result, files), False


@pytest.mark.parametrize("command", ["uv run pytest -q", "poetry run python -m pytest -q tests", "pytest -q"])
def test_pytest_behind_a_launcher_keeps_the_per_test_report(project: Path, command: str) -> None:
    feedback, plugin = run(project, command)
    assert plugin and not feedback["passed"]
    assert (feedback["total"], feedback["passed_count"]) == (12, 8)
    failure = next(f for f in feedback["failures"] if f["test"] == "test_total[10-450]")
    assert (failure["expected"], failure["actual"]) == ("450", "500"), "the plugin's comparison"
    assert failure["inputs"] == {"quantity": "10", "expected": "450"}
    assert any(frame["file"] == "tests/test_cart.py" for frame in failure["frames"])


def test_a_launcher_that_closes_descriptors_falls_back_to_the_output(project: Path) -> None:
    feedback, plugin = run(project, "hatch run pytest -q")
    assert not plugin and not feedback["passed"]
    assert (feedback["total"], feedback["passed_count"]) == (12, 8)
    assert "tests/test_cart.py::test_total[10-450]" in {f["test"] for f in feedback["failures"]}


@pytest.mark.parametrize("command", ["make test", "tox -e py", "hatch run test", "sh run-tests.sh"])
def test_a_command_codeheal_cannot_see_inside_is_judged_by_its_exit_code(project: Path, command: str) -> None:
    feedback, plugin = run(project, command)
    assert not plugin and not feedback["passed"] and feedback["error"] is None
    assert (feedback["total"], feedback["passed_count"]) == (12, 8)
    failures = {f["test"]: f for f in feedback["failures"]}
    assert len(failures) == 4
    assert failures["tests/test_cart.py::test_total[10-450]"]["message"] == "assert 500 == 450"


def test_unittest_tracebacks_become_failures_with_project_frames(project: Path) -> None:
    feedback, plugin = run(project, "python -m unittest unit.tiers")
    assert not plugin and not feedback["passed"]
    assert (feedback["total"], feedback["passed_count"]) == (2, 1)
    (failure,) = feedback["failures"]
    assert failure["test"] == "test_tier_starts_at_its_threshold"
    assert (failure["exception"], failure["message"]) == ("AssertionError", "0 != 10")
    assert failure["frames"][0]["file"] == "unit/tiers.py"
    assert failure["frames"][0]["source"] == "self.assertEqual(bulk_discount(10), 10)"


def test_a_passing_command_passes_by_its_exit_code(project: Path, tmp_path: Path) -> None:
    healed = tmp_path / "shop"
    shutil.copytree(project, healed, symlinks=True)
    pricing = healed / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text().replace("quantity > threshold", "quantity >= threshold"))
    feedback, plugin = run(healed, "make test")
    assert feedback["passed"] and not plugin and feedback["failures"] == []
    assert (feedback["total"], feedback["passed_count"]) == (12, 12)


def test_the_launcher_runs_inside_the_sandbox(project: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran-on-the-host"
    spy = project / ".venv" / "bin" / "spy"
    spy.write_text(f"#!/bin/sh\ntouch {marker}\nls -d /root /home/* 2>/dev/null | head -3; exit 3\n")
    spy.chmod(0o755)
    try:
        task = load_project(str(project), "spy run pytest")
        result = LocalSandbox().run(project_job(read_project(project).files, task.command, 30, python=task.interpreter))
    finally:
        spy.unlink()
    assert result.exit_code == 3 and not marker.exists(), "the host's /tmp is not the job's"
    assert os.path.realpath(str(project)) not in result.stdout


def test_shell_syntax_is_refused_before_anything_runs() -> None:
    from codeheal.errors import InputError

    with pytest.raises(InputError, match="'\\|' needs a shell"):
        parse_test_command("pytest -q | tee log")
    assert parse_test_command("uv run --with pytest-cov pytest -q").pytest_args == ("-q",)
    assert parse_test_command("hatch run test").pytest_at is None
    assert parse_test_command("tox -e py -- pytest").pytest_at is None, "tox's arguments are its own"
