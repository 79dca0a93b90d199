"""Without bubblewrap: an error naming the install command, unless basic isolation was chosen (then a warning)."""

from __future__ import annotations

import os
import sys
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from hostile_run import MARGIN_S, TIMEOUT_S, running_with

from codeheal import Context, build_graph, sandboxes
from codeheal.errors import SandboxError
from codeheal.evaluation.jobs import make_job
from codeheal.sandboxes import Job, LocalSandbox, local, sandbox_for
from codeheal.sandboxes.limits import processes_of, readable_by_anyone

ADD_TESTS = "assert add(2, 3) == 5\n"
GOOD_ADD = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """bwrap hidden: PATH holds only the interpreter's folder and an empty one."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(local, "_warned_basic", False)
    # sandbox_for keeps one LocalSandbox per process, which looked for bwrap once already
    sandboxes._local_sandbox.cache_clear()
    yield
    sandboxes._local_sandbox.cache_clear()


@pytest.mark.usefixtures("no_bwrap")
def test_basic_isolation_when_chosen_runs_with_one_warning() -> None:
    sandbox = LocalSandbox(isolation="basic")
    with pytest.warns(local.IsolationWarning, match="basic isolation"):
        result = sandbox.run(make_job(GOOD_ADD, ADD_TESTS, TIMEOUT_S))
    assert result.isolation == "basic"
    assert result.exit_code == 0
    with warnings.catch_warnings(record=True) as later:
        warnings.simplefilter("always")
        LocalSandbox(isolation="basic").run(make_job(GOOD_ADD, ADD_TESTS, TIMEOUT_S))
    assert [w for w in later if w.category is local.IsolationWarning] == []


@pytest.mark.usefixtures("no_bwrap")
def test_basic_isolation_reaches_the_feedback() -> None:
    graph = build_graph(llm=None).compile()
    with pytest.warns(local.IsolationWarning):
        out = graph.invoke(
            {"task": "add", "tests": ADD_TESTS, "starting_code": GOOD_ADD},
            context=Context(max_attempts=1, timeout_s=TIMEOUT_S, isolation="basic"),
        )
    assert out["status"] == "passed"


@pytest.mark.usefixtures("no_bwrap")
def test_without_bwrap_the_default_isolation_is_a_sandbox_error_naming_the_install() -> None:
    sandbox = sandbox_for(Context(sandbox="local"))
    with pytest.raises(SandboxError, match="bubblewrap.*apt-get install bubblewrap.*isolation=.basic"):
        sandbox.run(make_job(GOOD_ADD, ADD_TESTS, TIMEOUT_S))


@pytest.mark.usefixtures("no_bwrap")
def test_missing_bwrap_fails_the_run_not_an_attempt() -> None:
    graph = build_graph(llm=None).compile()
    with pytest.raises(SandboxError, match="bubblewrap"):
        graph.invoke(
            {"task": "add", "tests": ADD_TESTS, "starting_code": GOOD_ADD},
            context=Context(max_attempts=1, timeout_s=TIMEOUT_S),
        )


VENV_PYTHON = sys.executable


@pytest.mark.skipif(
    os.geteuid() != 0 or not all(readable_by_anyone(p) for p in (sys.executable, sys.base_prefix)),
    reason="needs root (the job uid exists only then) and an interpreter any uid can read",
)
@pytest.mark.usefixtures("no_bwrap")
def test_basic_isolation_as_root_drops_root_and_sweeps_escaped_children(job_uids: list[int]) -> None:
    token = f"codeheal-orphan-{uuid.uuid4().hex}"
    script = (
        "import os, subprocess, sys\n"
        f"subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {token!r}],\n"
        "                 start_new_session=True)\n"
        "print('uid', os.getuid())\n"
    )
    job = Job(files={"main.py": script}, python_args=["main.py"], timeout_s=TIMEOUT_S)
    with pytest.warns(local.IsolationWarning):
        result = LocalSandbox(python=VENV_PYTHON, isolation="basic").run(job)
    assert result.isolation == "basic"
    assert result.exit_code == 0
    assert result.stdout.split() == ["uid", str(job_uids[0])]
    assert result.seconds < TIMEOUT_S + MARGIN_S
    assert processes_of(job_uids[0]) == []
    assert not running_with(token)


@pytest.mark.usefixtures("no_bwrap")
def test_unwritable_workspace_is_a_sandbox_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    sandbox = LocalSandbox(isolation="basic")
    with pytest.warns(local.IsolationWarning):
        sandbox.run(make_job(GOOD_ADD, ADD_TESTS, TIMEOUT_S))
    monkeypatch.setattr(local.tempfile, "tempdir", str(tmp_path / "no-such-folder"))
    with pytest.raises(SandboxError, match="cannot create a workspace.*TMPDIR"):
        sandbox.run(make_job(GOOD_ADD, ADD_TESTS, TIMEOUT_S))
