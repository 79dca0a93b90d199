"""E2B shares nothing between candidates: a hostile candidate that plants files outside its
workspace (a `usercustomize.py` / `sitecustomize.py` in the user site) and leaves a process
behind that rewrites every later workspace reaches no later job of its session.

Against the fake E2B server (tests/sandboxes/fake_server.py): the unmodified SDK over real HTTP, the
jobs really run. The sandbox layer is tested alone, without the tamper scan in front of it:
isolation must hold for a candidate the scan lets through. The controls run the same attack
with two jobs in one remote sandbox (what codeheal did before) and show that it works there."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[1] / "sandboxes"))  # the fake lives beside the E2B tests

from e2b_code_interpreter import AsyncSandbox
from fake_fixtures import api_env, fake, server
from fake_server import FakeE2B

from codeheal.evaluation.jobs import make_job
from codeheal.forms.module.candidate import _from_run
from codeheal.sandboxes.base import Job, RunResult
from codeheal.sandboxes.e2b import E2BSandbox
from codeheal.sandboxes.e2b_job import ensure_pytest, run_job

pytestmark = pytest.mark.usefixtures("api_env")
__all__ = ["api_env", "fake", "server"]  # the fake server's fixtures, used here

TESTS = "def test_small():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"
PATCH = "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None\n"
PLANTED = ("usercustomize.py", "sitecustomize.py", "codeheal-planted.pth")

ATTACK = f'''
import os, site, time

def _plant():
    """Files that patch pytest in every later interpreter that reads the user site."""
    user_site = site.getusersitepackages()
    os.makedirs(user_site, exist_ok=True)
    for name in {PLANTED!r}:
        with open(os.path.join(user_site, name), "w") as planted:
            planted.write({PATCH!r})

def _haunt():
    """A process left behind that gives every later workspace a passing candidate."""
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.closerange(3, 65536)
    workspaces, mine = os.path.dirname(os.getcwd()), os.getcwd()
    seen = {{mine}}
    deadline = time.time() + 30
    while time.time() < deadline:
        for name in os.listdir(workspaces):
            path = os.path.join(workspaces, name)
            if path not in seen and os.path.exists(os.path.join(path, "solution.py")):
                seen.add(path)
                with open(os.path.join(path, "solution.py"), "w") as solution:
                    solution.write({GOOD!r})
        time.sleep(0.002)
    os._exit(0)

_plant()
'''
PLANTER = ATTACK + BAD
"""Plants the files only."""
HAUNTER = ATTACK.replace("_plant()\n", "") + "_haunt()\n" + BAD
"""Leaves a process behind only (a planted runner patch fails on its own now: no test body ends)."""
ATTACK += "_haunt()\n" + BAD
"""Plants the files and leaves a process behind."""

PROBE = f'''
import os, site

def leftovers():
    """What of an earlier job this job can see."""
    user_site = site.getusersitepackages()
    found = [name for name in {PLANTED!r} if os.path.exists(os.path.join(user_site, name))]
    workspaces = os.path.dirname(os.getcwd())
    found += [name for name in os.listdir(workspaces) if os.path.join(workspaces, name) != os.getcwd()]
    reports = os.listdir(os.path.join(os.path.dirname(workspaces), "codeheal-reports"))
    found += reports[1:]  # this job's own report is the only one
    return found

def add(a, b):
    assert leftovers() == [], leftovers()
    return a + b
'''


def passed(result: RunResult) -> bool:
    return _from_run(result, TESTS)["passed"]


def in_one_session(*jobs: Job) -> list[RunResult]:
    """The jobs one after another in one session of E2BSandbox, then the session closed."""
    sandbox = E2BSandbox()

    async def run() -> list[RunResult]:
        results = [await sandbox.arun(job) for job in jobs]
        await sandbox.aclose_session("hostile")
        return results

    return asyncio.run(run())


def in_one_remote(*jobs: Job) -> list[RunResult]:
    """The control: the jobs one after another in a single remote sandbox, as codeheal ran a
    session's jobs before."""

    async def run() -> list[RunResult]:
        remote = await AsyncSandbox.create()
        try:
            await ensure_pytest(remote)
            return [await run_job(remote, job) for job in jobs]
        finally:
            await remote.kill()

    return asyncio.run(run())


def session_jobs(*candidates: str) -> list[Job]:
    return [make_job(candidate, TESTS, timeout_s=20, session="hostile") for candidate in candidates]


def test_control_in_one_shared_remote_sandbox_the_attack_forges_the_next_pass(fake: FakeE2B) -> None:
    attack, later = in_one_remote(*session_jobs(HAUNTER, BAD))
    assert not passed(attack)
    assert passed(later)  # the left-behind process rewrote the later candidate: a forged pass


def test_control_in_one_shared_remote_sandbox_the_planted_files_are_seen(fake: FakeE2B) -> None:
    planter, probe = in_one_remote(*session_jobs(PLANTER, PROBE))
    assert not passed(planter) and not passed(probe)
    failure = _from_run(probe, TESTS)["failures"][0]
    assert all(name in failure["message"] for name in PLANTED), failure


def test_a_candidate_left_behind_cannot_change_a_later_job_of_its_session(fake: FakeE2B) -> None:
    attack, later = in_one_session(*session_jobs(ATTACK, BAD))
    assert not passed(attack)
    later_feedback = _from_run(later, TESTS)
    assert not later_feedback["passed"] and later_feedback["passed_count"] == 1
    assert later_feedback["failures"][0]["actual"] == "-1"  # the later candidate's own answer
    assert len(fake.record.created) == 2 and fake.record.killed == fake.record.created
    assert fake.running == 0


def test_each_candidate_starts_in_a_clean_environment(fake: FakeE2B) -> None:
    attack, probe, good = in_one_session(*session_jobs(ATTACK, PROBE, GOOD))
    assert not passed(attack)
    assert passed(probe), _from_run(probe, TESTS)["failures"]  # no planted file, workspace or process
    assert passed(good)
    assert len(set(fake.record.created)) == 3 and fake.record.killed == fake.record.created
