"""The sandbox jobs that run tests: the single-module form (the candidate as solution.py
beside the user's tests) and the project form (a copy of the project and its test command).
Both run codeheal's supervisor, which starts pytest through codeheal_pytest (the report plugin
registered before pytest reads any configuration) and alone holds the report channel to the
host (supervisor.py)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from codeheal.evaluation.checks import TEST_MODULE, build_test_module, parse_tests, watched_asserts
from codeheal.forms.project.repair_context import is_test_file
from codeheal.forms.project.task import TestCommand
from codeheal.sandboxes.base import Job

PLUGIN_MODULE = "codeheal_report"
PLUGIN_SOURCE = (Path(__file__).with_name("pytest_plugin.py")).read_text(encoding="utf-8")
PLAIN_MODULE = "codeheal_plain.py"
PLAIN_SOURCE = (Path(__file__).with_name("plain_data.py")).read_text(encoding="utf-8")
SUPERVISOR = "codeheal_supervisor.py"
SUPERVISOR_SOURCE = (Path(__file__).with_name("supervisor.py")).read_text(encoding="utf-8")
LAUNCH_MODULE = "codeheal_pytest"
LAUNCH_SOURCE = (Path(__file__).with_name("pytest_launch.py")).read_text(encoding="utf-8")
SUPERVISED = ("-I", SUPERVISOR)
"""The supervisor starts isolated from the workspace (supervisor.py); the test process is its child."""
PYTEST_ARGS = (
    *SUPERVISED, "-m", LAUNCH_MODULE, "-p", "no:cacheprovider", "-p", "no:terminal", "-s", TEST_MODULE,
)
PLUGIN_OPTIONS = ("-p", "no:cacheprovider")
PROJECT_PYTEST_ARGS = (*SUPERVISED, "-m", LAUNCH_MODULE, *PLUGIN_OPTIONS)
COMMAND_FLAG = "--command"
"""The supervisor runs the words after it as a command (a launcher), not as Python arguments."""
NO_AUTOLOAD = {"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
"""Plugins named with -p still load (the report plugin); installed ones are not looked up."""
PYTEST_CONFIGS = frozenset({"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"})
"""Files pytest reads its configuration from: part of the tests, read-only like them."""
COVERAGE = {"CODEHEAL_COVERAGE": "1"}
"""The report plugin records each test's line coverage of the workspace's modules (pytest_plugin.py)."""


def make_job(candidate: str, tests: str, timeout_s: float, session: str | None = None) -> Job:
    """The sandbox job that runs the tests against one candidate; everything but the
    candidate is read-only in it."""
    files = {
        "solution.py": candidate,
        TEST_MODULE: build_test_module(tests, watched_asserts(parse_tests(tests))),
        f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE,
        SUPERVISOR: SUPERVISOR_SOURCE,
        PLAIN_MODULE: PLAIN_SOURCE,
        f"{LAUNCH_MODULE}.py": LAUNCH_SOURCE,
        "pytest.ini": "[pytest]\n",
    }
    return Job(
        files=files,
        read_only=frozenset(files) - {"solution.py"},
        python_args=PYTEST_ARGS,
        timeout_s=timeout_s,
        report=True,
        env=NO_AUTOLOAD,
        session=session,
    )


def project_job(
    files: Mapping[str, str], command: TestCommand, timeout_s: float, session: str | None = None,
    python: str | None = None, *, coverage: bool = False,
) -> Job:
    """The sandbox job that runs a project's test command on a copy of its files. Where pytest
    is visible in the command, the report plugin goes beside the files and is passed to it with
    -p, under the supervisor (pytest itself runs on the project's interpreter; a launcher runs
    as given, the supervisor starting it); the project's own configuration and conftest apply
    (no codeheal pytest.ini). Installed pytest plugins load only from the project's own
    environment: on codeheal's (`python` None or codeheal's interpreter, the project having no
    virtualenv of its own) autoload is off, so the plugins of codeheal's dependencies (anyio,
    langsmith, ...) neither change the run nor add their seconds to every attempt. `coverage`:
    the plugin also records each test's line coverage (the run of the project as it is, for
    the suspicious-line ranking). Any other command runs as given, and its exit code and output
    are the report. The tests, their configuration and the harness files are read-only."""
    if command.direct:
        run: dict = {"python_args": (*PROJECT_PYTEST_ARGS, *command.pytest_args)}
    elif command.pytest_at is not None:
        run = {"python_args": (*SUPERVISED, COMMAND_FLAG), "command": command.through(LAUNCH_MODULE, PLUGIN_OPTIONS)}
    else:
        return Job(files=files, read_only=project_tests(files), python_args=(), command=command.argv, timeout_s=timeout_s,
                   session=session, python=python)
    harness = {f"{PLUGIN_MODULE}.py": PLUGIN_SOURCE, SUPERVISOR: SUPERVISOR_SOURCE, PLAIN_MODULE: PLAIN_SOURCE,
               f"{LAUNCH_MODULE}.py": LAUNCH_SOURCE}
    return Job(
        files={**files, **harness},
        read_only=frozenset(harness) | project_tests(files),
        timeout_s=timeout_s,
        report=True,
        env={**(NO_AUTOLOAD if is_codeheals_python(python) else {}), **(COVERAGE if coverage else {})},
        session=session,
        python=python,
        **run,
    )


def project_tests(files: Mapping[str, str]) -> frozenset[str]:
    """The files of a project that are part of its tests: test modules, conftests and pytest's
    configuration, read-only in the sandbox."""
    return frozenset(name for name in files if is_test_file(name) or name in PYTEST_CONFIGS)


def is_codeheals_python(python: str | None) -> bool:
    """Whether `python` (a project's interpreter; None: the sandbox's own) is the environment
    codeheal itself runs in."""
    if python is None:
        return True
    return Path(python).absolute().parent.parent.resolve() == Path(sys.prefix).resolve()
