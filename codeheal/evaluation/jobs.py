"""The sandbox jobs that run tests: the single-module form (the candidate as solution.py
beside the user's tests) and the project form (a copy of the project and its test command),
both reporting through codeheal's pytest plugin."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from codeheal.evaluation.checks import TEST_MODULE, build_test_module
from codeheal.project.task import TestCommand
from codeheal.sandboxes.base import Job

PLUGIN_MODULE = "codeheal_report"
PLUGIN_SOURCE = (Path(__file__).with_name("pytest_plugin.py")).read_text(encoding="utf-8")
PYTEST_ARGS = (
    "-m", "pytest", "-p", PLUGIN_MODULE, "-p", "no:cacheprovider", "-p", "no:terminal", "-s",
    TEST_MODULE,
)
PROJECT_PYTEST_ARGS = ("-m", "pytest", "-p", PLUGIN_MODULE, "-p", "no:cacheprovider")


def make_job(candidate: str, tests: str, timeout_s: float, session: str | None = None) -> Job:
    """The sandbox job that runs the tests against one candidate."""
    return Job(
        files={
            "solution.py": candidate,
            TEST_MODULE: build_test_module(tests),
            f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE,
            "pytest.ini": "[pytest]\n",
        },
        python_args=PYTEST_ARGS,
        timeout_s=timeout_s,
        report=True,
        env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        session=session,
    )


def project_job(
    files: Mapping[str, str], command: TestCommand, timeout_s: float, session: str | None = None,
    python: str | None = None,
) -> Job:
    """The sandbox job that runs a project's test command on a copy of its files. Where pytest
    is visible in the command, the report plugin goes beside the files and is passed to it with
    -p (pytest itself runs on the project's interpreter; a launcher runs as given); the project's
    own configuration, conftest and installed pytest plugins apply (no codeheal pytest.ini, no
    plugin autoload switch). Any other command runs as given, and its output is the report."""
    if command.direct:
        run: dict = {"python_args": (*PROJECT_PYTEST_ARGS, *command.pytest_args)}
    elif command.pytest_at is not None:
        run = {"python_args": (), "command": command.with_pytest_options(PROJECT_PYTEST_ARGS[2:])}
    else:
        return Job(files=files, python_args=(), command=command.argv, timeout_s=timeout_s, session=session, python=python)
    return Job(
        files={**files, f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE},
        timeout_s=timeout_s,
        report=True,
        session=session,
        python=python,
        **run,
    )
