"""The project form's test runs: the sandbox job (a copy of the project's files and its test
command, under codeheal's supervisor and report plugin where pytest is visible in the
command), run, and its feedback read; a repair's runs (the failing tests first, then the
whole command)."""

from __future__ import annotations

import sys
from collections.abc import Collection, Mapping
from pathlib import Path

from codeheal.evaluation.feedback import run_feedback
from codeheal.evaluation.jobs import HARNESS, LAUNCH_MODULE, NO_AUTOLOAD, SUPERVISED
from codeheal.forms.project.test_paths import is_test_file
from codeheal.forms.project.run import ProjectRun
from codeheal.forms.project.source_text import file_bytes
from codeheal.forms.project.task import TestCommand
from codeheal.forms.project.time_limits import limits_files
from codeheal.forms.project.tracebacks import output_feedback, with_text_frames
from codeheal.forms.project.workspace_store import Workspace
from codeheal.sandboxes.base import SITE_ENV, Job, RunResult, Sandbox
from codeheal.state import Feedback
from codeheal.steps import SandboxRun, Steps

PLUGIN_OPTIONS = ("-p", "no:cacheprovider")
PROJECT_PYTEST_ARGS = (*SUPERVISED, "-m", LAUNCH_MODULE, *PLUGIN_OPTIONS)
COMMAND_FLAG = "--command"
"""The supervisor runs the words after it as a command (a launcher), not as Python arguments."""
PYTEST_CONFIGS = frozenset({"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"})
"""Files pytest reads its configuration from: part of the tests, read-only like them."""
COVERAGE = {"CODEHEAL_COVERAGE": "1"}
"""The report plugin records each test's line coverage of the workspace's modules (pytest_plugin.py)."""


def repair_runs(
    sandbox: Sandbox, run: ProjectRun, workspace: Workspace, commands: tuple[TestCommand, TestCommand | None],
    limit: float, session: str | None,
) -> Steps[Feedback]:
    """A repair's test runs on the changed `workspace`, of the run's `commands` (its test command,
    and the one narrowed to the failing tests, if any: run.first_command): the tests that
    failed on the project as it is alone first, where pytest takes their node ids, then the
    whole command, which must run and pass every test the project as it is ran; a change that
    fixes the failing tests and breaks others says which."""
    as_is, (command, first) = run["as_is"], commands
    assert as_is is not None
    failing = as_is["tests_failed"]
    first_seconds = 0.0
    if first is not None:
        feedback, _ = yield from judged_run(sandbox, workspace, first, limit, session, run, failing)
        if not feedback["passed"] and set(feedback.get("tests_ran") or []) & set(failing):
            # Counted as a whole run: the tests that passed on the project as it is were not rerun.
            not_rerun = len(set(as_is["tests_ran"]) - set(failing))
            feedback["passed_count"] += not_rerun
            feedback["total"] += not_rerun
            return feedback
        # Passed, or ran none of them by their ids (another rootdir): the whole command decides.
        first_seconds = feedback["seconds"]
    feedback, _ = yield from judged_run(sandbox, workspace, command, limit, session, run, as_is["tests_ran"])
    feedback["seconds"] = round(feedback["seconds"] + first_seconds, 3)
    if first is not None and not feedback["passed"] and feedback["error"] is None and feedback["failures"]:
        broken = sorted({f["test"] for f in feedback["failures"]})
        feedback["error"] = (f"the failing tests pass now, but the change breaks {len(broken)} other test(s): "
                             f"{', '.join(broken[:5])}")
    return feedback


def judged_run(
    sandbox: Sandbox, workspace: Workspace, command: TestCommand, limit: float, session: str | None,
    run: ProjectRun, must_run: list[str] | None, *, coverage: bool = False,
) -> Steps[tuple[Feedback, RunResult]]:
    """One run of `command` on the `workspace`'s files in the sandbox (on the run's interpreter, at the
    project's own path), judged, and the run itself; `must_run`: the node ids that must run
    and pass (None: whatever ran); `coverage`: record each test's line coverage."""
    # .get: a run checkpointed before the copy stood at the project's path resumes where it ran.
    job = project_job(workspace.files, command, limit, session, run["interpreter"], coverage=coverage,
                      workdir=run.get("root"), data=workspace.data, folders=frozenset(run.get("folders", ())),
                      test_limits=(run["as_is"] or {}).get("test_limits", {}))
    result = yield SandboxRun(sandbox, job)
    feedback = judged(result, command, workspace.files, must_run)
    feedback["time_limit_s"] = limit
    return feedback, result


def judged(result: RunResult, command: TestCommand, files: Mapping[str, str], must_run: list[str] | None) -> Feedback:
    """The Feedback of a run of `command`: whether it must report was fixed from the command
    before it ran (TestCommand.reports), so one that should have and did not fails (its
    report never started), whatever its exit code; any other command's exit code and output
    tell."""
    if not command.reports:
        return output_feedback(result, files)
    feedback = run_feedback(result, None, must_run=must_run)
    feedback["failures"] = with_text_frames(feedback["failures"], files)
    return feedback


def project_job(
    files: Mapping[str, str], command: TestCommand, timeout_s: float, session: str | None = None,
    python: str | None = None, *, coverage: bool = False, workdir: str | None = None,
    data: Mapping[str, bytes] | None = None, folders: frozenset[str] = frozenset(),
    test_limits: Mapping[str, float] | None = None,
) -> Job:
    """The sandbox job that runs a project's test command on a copy of its files. Where pytest
    is visible in the command, the report plugin goes beside the files and pytest starts
    through codeheal_pytest (the plugin registered before any configuration), under the supervisor (pytest itself runs on the project's interpreter; a launcher runs
    as given, the supervisor starting it); the project's own configuration and conftest apply
    (no codeheal pytest.ini). Installed pytest plugins load only from the project's own
    environment: on codeheal's (`python` None or codeheal's interpreter, the project having no
    virtualenv of its own) autoload is off, so the plugins of codeheal's dependencies (anyio,
    langsmith, ...) neither change the run nor add their seconds to every attempt. `coverage`:
    the plugin also records each test's line coverage (the run of the project as it is, for
    the suspicious-line ranking). Any other command runs as given, and its exit code and output
    are the report. The tests, their configuration and the harness files are read-only.
    `workdir`: the project's own path, where the copy appears (Job.workdir); each text file is
    written as the project holds it (a module in the encoding it declares); `data`: the
    project's binary files, written beside the text as bytes; `folders`: its empty folders;
    `test_limits`: node id -> that test's own time limit, beside the harness (time_limits.py)."""
    every: dict[str, str | bytes] = {**(data or {}), **{path: file_bytes(path, text) for path, text in files.items()}}
    env = {**(NO_AUTOLOAD if is_codeheals_python(python) else {}), **(COVERAGE if coverage else {})}
    tests = project_tests(every)
    if command.direct:
        run: dict = {"python_args": (*PROJECT_PYTEST_ARGS, *command.pytest_args)}
    elif command.reports:  # the launcher's python starts with no site, added once the harness holds its key
        run = {"python_args": (*SUPERVISED, COMMAND_FLAG), "command": command.through(LAUNCH_MODULE, PLUGIN_OPTIONS)}
        env[SITE_ENV] = "1"
    else:
        return Job(files=every, read_only=tests, python_args=(), command=command.argv,
                   timeout_s=timeout_s, session=session, python=python, workdir=workdir, folders=folders)
    limits = limits_files(test_limits or {})
    return Job(
        files={**every, **HARNESS, **limits},
        read_only=frozenset(HARNESS) | frozenset(limits) | tests,
        timeout_s=timeout_s,
        report=True,
        env=env,
        session=session,
        python=python,
        workdir=workdir,
        folders=folders,
        **run,
    )


def project_tests(files: Collection[str]) -> frozenset[str]:
    """The files of a project (by name: text or bytes, such as a test module with a coding
    declaration) that are part of its tests: test modules, conftests and pytest's
    configuration, read-only in the sandbox."""
    return frozenset(name for name in files if is_test_file(name) or name in PYTEST_CONFIGS)


def is_codeheals_python(python: str | None) -> bool:
    """Whether `python` (a project's interpreter; None: the sandbox's own) is the environment
    codeheal itself runs in."""
    if python is None:
        return True
    return Path(python).absolute().parent.parent.resolve() == Path(sys.prefix).resolve()
