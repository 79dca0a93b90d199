"""The sandbox job's plumbing every form uses (codeheal's supervisor, which starts pytest
through codeheal_pytest, the report plugin registered before pytest reads any configuration,
and alone holds the report channel to the host: supervisor.py), and the module form's job:
the candidate as solution.py beside the user's tests. The project form's job is
codeheal/forms/project/job.py."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codeheal.evaluation.checks import TEST_MODULE, build_test_module, parse_tests, top_level_imports, watched_asserts
from codeheal.sandboxes.base import Job

PLUGIN_MODULE = "codeheal_report"
PLUGIN_SOURCE = (Path(__file__).with_name("pytest_plugin.py")).read_text(encoding="utf-8")
PLAIN_MODULE = "codeheal_plain.py"
PLAIN_SOURCE = (Path(__file__).with_name("plain_data.py")).read_text(encoding="utf-8")
SUPERVISOR = "codeheal_supervisor.py"
SUPERVISOR_SOURCE = (Path(__file__).with_name("supervisor.py")).read_text(encoding="utf-8")
CLOCK_MODULE = "codeheal_clock.py"
CLOCK_SOURCE = (Path(__file__).with_name("clock.py")).read_text(encoding="utf-8")
PROXY_MODULE = "codeheal_proxy.py"
PROXY_SOURCE = (Path(__file__).with_name("candidate_proxy.py")).read_text(encoding="utf-8")
CANDIDATE_HOST = "codeheal_candidate.py"
CANDIDATE_HOST_SOURCE = (Path(__file__).with_name("candidate_host.py")).read_text(encoding="utf-8")
LAUNCH_MODULE = "codeheal_pytest"
LAUNCH_SOURCE = (Path(__file__).with_name("pytest_launch.py")).read_text(encoding="utf-8")
SUPERVISED = ("-I", SUPERVISOR)
"""The supervisor starts isolated from the workspace (supervisor.py); the test process is its child."""
PYTEST_OPTIONS = (*SUPERVISED, "-m", LAUNCH_MODULE, "-p", "no:cacheprovider", "-p", "no:terminal", "-s")
PYTEST_ARGS = (*PYTEST_OPTIONS, TEST_MODULE)
NO_AUTOLOAD = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
"""Plugins named with -p still load (the report plugin); installed ones are not looked up."""
HARNESS = {f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE, SUPERVISOR: SUPERVISOR_SOURCE, PLAIN_MODULE: PLAIN_SOURCE,
           CLOCK_MODULE: CLOCK_SOURCE, f"{LAUNCH_MODULE}.py": LAUNCH_SOURCE, PROXY_MODULE: PROXY_SOURCE}
"""The files every job that runs pytest under the supervisor puts beside the code it tests
(read-only in the sandbox)."""


def make_job(candidate: str, tests: str, timeout_s: float, session: str | None = None,
             entry_point: str | None = None, python: str | None = None, *, apart: bool = True,
             selected: Sequence[str] = ()) -> Job:
    """The sandbox job that runs the tests against one candidate (its `entry_point`, the
    function the tests call, is the candidate's even when a builtin has its name), on
    `python` (a user's environment, read-only; None: the sandbox's own). `apart`: the
    candidate runs in a process of its own (codeheal_proxy): the test file is not read-only
    but emptied by the test process before that process starts (no bytecode of it written);
    the rest is read-only. Otherwise it is imported into the test process, as plain pytest
    does (routes.py), and everything but it is read-only. `selected`: the checks to run (their
    names, check_names), all when empty."""
    files = {
        "solution.py": candidate,
        TEST_MODULE: build_test_module(tests, watched_asserts(parse_tests(tests)), entry_point, apart=apart),
        **HARNESS,
        **({CANDIDATE_HOST: CANDIDATE_HOST_SOURCE} if apart else {}),
        "pytest.ini": "[pytest]\n",
    }
    return Job(
        files=files,
        read_only=frozenset(files) - {"solution.py", *([TEST_MODULE] if apart else [])},
        python_args=(*PYTEST_OPTIONS, *(f"{TEST_MODULE}::{name}" for name in selected)) if selected else PYTEST_ARGS,
        timeout_s=timeout_s,
        report=True,
        env={**NO_AUTOLOAD, "PYTHONDONTWRITEBYTECODE": "1",
             **({"CODEHEAL_HYPOTHESIS": "1"} if "hypothesis" in top_level_imports(parse_tests(tests)) else {})},
        session=session,
        python=python,
    )
