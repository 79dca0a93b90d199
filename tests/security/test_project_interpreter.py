"""Nothing of a project runs on the host: its interpreter is checked without running it, and
asked what it has only inside the sandbox, isolated and with an empty environment."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from project_venv import venv_with_pytest

from codeheal.cli import main
from codeheal.errors import SandboxError
from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.job import project_job
from codeheal.forms.project.task import parse_test_command
from codeheal.sandboxes import LocalSandbox

SECRET = "CODEHEAL_TEST_HOST_SECRET"


def project_with_venv(root: Path, canary: Path) -> Path:
    """A project whose .venv is a real virtualenv holding pytest and a .pth file that, run
    anywhere, writes the environment it sees to `canary`."""
    project = root / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_env.py").write_text(
        "import os\n\ndef test_no_host_secret():\n"
        f"    assert {SECRET!r} not in os.environ\n"
    )
    site = venv_with_pytest(project / ".venv")
    (site / "evil.pth").write_text(
        f"import os; open({str(canary)!r}, 'w').write(repr(sorted(os.environ)))\n"
    )
    return project


@pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")
def test_the_projects_site_packages_run_only_inside_the_sandbox(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(SECRET, "host key")
    canary = tmp_path / "pth-ran-here"
    project = project_with_venv(tmp_path, canary)
    files = {"tests/test_env.py": (project / "tests" / "test_env.py").read_text()}
    python = str(project / ".venv" / "bin" / "python")
    feedback = run_feedback(LocalSandbox().run(project_job(files, parse_test_command("pytest -q"), 60, python=python)), None)
    assert feedback["passed"], feedback
    assert not canary.exists(), "the project's .pth file ran on the host"


def test_a_script_posing_as_the_projects_python_never_runs(tmp_path: Path, capsys) -> None:
    canary = tmp_path / "script-ran"
    project = tmp_path / "project"
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / "test_x.py").write_text("def test_x():\n    pass\n")
    script = project / ".venv" / "bin" / "python"
    script.write_text(f"#!/bin/sh\ntouch {canary}\n")
    script.chmod(0o755)
    code = main(["fix", str(project), "--test", "python -m pytest -q", "--model", "unreachable",
                 "--base-url", "http://127.0.0.1:9/v1"])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "not a Python interpreter" in err, err
    assert not canary.exists()


def test_the_sandbox_refuses_a_script_as_interpreter_too(tmp_path: Path) -> None:
    canary = tmp_path / "script-ran"
    script = tmp_path / "python"
    script.write_text(f"#!/bin/sh\ntouch {canary}\n")
    script.chmod(0o755)
    with pytest.raises(SandboxError, match="not a Python interpreter"):
        LocalSandbox(isolation="basic").run(project_job({}, parse_test_command("pytest -q"), 30, python=str(script)))
    assert not canary.exists()


def test_an_interpreter_naming_host_paths_is_refused(tmp_path: Path) -> None:
    from codeheal.sandboxes.runtime import project_runtime

    answer = '{"base_prefixes": [], "packages": {"keys": "%s"}}' % os.path.expanduser("~/.ssh")
    with pytest.raises(SandboxError, match="outside its installation"):
        project_runtime(sys.executable, answer)
