"""The project form of a task, checked before any model call: a folder, its test command, and
optionally the function to repair and the interpreter to run on."""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from codeheal.errors import InputError
from codeheal.forms.project.edits import Target, parse_target, paths_named
from codeheal.forms.project.installed import refuse_installed_copy
from codeheal.forms.project.snapshot import Snapshot, find_python, read_project
from codeheal.sandboxes.base import SANDBOX_PATH

PYTHON = re.compile(r"^python(3(\.\d+)?)?$")
LAUNCHERS = ("uv", "poetry", "hatch", "pdm", "pipenv", "rye")
"""Tools whose `run` subcommand starts the rest of the command in the project's environment."""
REPORTING_LAUNCHERS = ("uv", "poetry", "pipenv", "rye")
"""Launchers that start the command with the descriptors they inherited (an exec, or a child
that keeps them): pytest behind one reports to codeheal. hatch and pdm start it as a Python
subprocess, which closes them: pytest behind those is judged by its exit code."""
ENVIRONMENT_LAUNCHERS = ("uv", "poetry", "pdm", "pipenv", "rye")
"""Launchers whose `run` uses the project's `.venv` when it has one."""
NO_SYNC = "--no-sync"
"""`uv run`'s switch that uses the environment as it is (never installs into it)."""
SHELL_WORDS = {"&&", "||", "|", ";", "&", ">", ">>", "<", "2>", "2>&1"}
DEFAULT_TASK = "The project's tests fail. Fix the code so that they pass, changing as little as possible."
CHECK_TASK = "The checker reports errors in the project. Fix the code so that it reports none, changing as little as possible."
"""The task of a run whose checker alone is the specification (`fix --check` without --test)."""


@dataclass(frozen=True)
class TestCommand:
    """A project's test command, as the sandbox runs it (without a shell).

    Three kinds: pytest itself (`pytest ARGS`, `python -m pytest ARGS`), run on the project's
    interpreter; pytest behind a launcher (`uv run pytest ARGS`, `poetry run python -m pytest`),
    run with its pytest started through codeheal_pytest (the report plugin first); and a command codeheal
    cannot see inside (`make test`, `python -m unittest`, `tox`, a script, pytest behind hatch or pdm), whose exit code
    decides and whose output's tracebacks are the feedback."""

    __test__ = False  # not a pytest test class, whatever its name

    argv: tuple[str, ...]
    pytest_at: int | None
    """Where pytest's own arguments start in argv; None when pytest is not visible in it."""
    direct: bool = field(init=False)
    """pytest itself, with nothing before it but an interpreter."""
    pytest_args: tuple[str, ...] = field(init=False)
    """pytest's arguments (none for a command codeheal cannot see inside)."""
    reports: bool = field(init=False)
    """Whether its run must report to codeheal, fixed from the command before it runs: pytest
    itself, or behind a launcher that keeps descriptors. A run that must report and did not
    fails; any other command's exit code decides."""

    def __post_init__(self) -> None:
        at = self.pytest_at
        program = PurePosixPath(self.argv[0]).name
        object.__setattr__(self, "direct", at is not None and program not in LAUNCHERS)
        object.__setattr__(self, "reports", self.direct or (at is not None and program in REPORTING_LAUNCHERS))
        object.__setattr__(self, "pytest_args", () if at is None else self.argv[at:])

    def through(self, module: str, options: tuple[str, ...]) -> tuple[str, ...]:
        """The command with its pytest started as `python -S -m module` (on the interpreter it
        names, else the launcher's `python`), `options` given first: with no site, which
        `module` (codeheal's launcher) adds once the harness holds its key (sandboxes.base.SITE_ENV)."""
        assert self.pytest_at is not None
        as_module = self.pytest_at >= 3 and self.argv[self.pytest_at - 2] == "-m"
        start = self.pytest_at - 3 if as_module else self.pytest_at - 1
        python = self.argv[start] if as_module else "python"
        return (*self.argv[:start], python, "-S", "-m", module, *options, *self.argv[self.pytest_at:])


def parse_test_command(test_command: str, what: str = "test command") -> TestCommand:
    """The test command as words, and where its pytest is. InputError for an empty command or
    one that needs a shell (pipes, `&&`, redirections, variables); `what`: the command's name in
    the message (the check command: the same rules)."""
    try:
        argv = tuple(shlex.split(test_command))
    except ValueError as exc:
        raise InputError(f"{what} {test_command!r}: {exc}") from None
    if not argv:
        raise InputError(f"the {what} is empty: give one, e.g. --test 'python -m pytest -q'")
    shell = [word for word in argv if word in SHELL_WORDS or "$" in word]
    if shell:
        raise InputError(
            f"{what} {test_command!r}: {shell[0]!r} needs a shell, and codeheal runs the command "
            "without one: put it in a script of the project and give `sh run-tests.sh`"
        )
    if argv[0].startswith("./"):
        raise InputError(
            f"{what} {test_command!r}: the sandbox's copy of the project keeps no executable "
            f"bits; give `sh {argv[0]}` (or bash, python) instead"
        )
    return TestCommand(argv, _pytest_start(argv))


def _pytest_start(argv: tuple[str, ...]) -> int | None:
    start = 2 if len(argv) > 1 and PurePosixPath(argv[0]).name in LAUNCHERS and argv[1] == "run" else 0
    for i in range(start, len(argv) if start else 1):
        word = PurePosixPath(argv[i]).name
        if word in ("pytest", "py.test"):
            return i + 1
        if PYTHON.match(word) and argv[i + 1 : i + 3] == ("-m", "pytest"):
            return i + 3
    return None


@dataclass(frozen=True)
class ProjectTask:
    """A project read into memory, its test command, and its Python."""

    snapshot: Snapshot
    command: TestCommand | None
    """None: no test command (a checker alone is the specification)."""
    interpreter: str | None
    """None: the sandbox's own interpreter (codeheal's)."""
    target: Target | None


def load_project(
    project: str, test_command: str | None, *, target: str | None = None, python: str | None = None
) -> ProjectTask:
    """Read the project and check its input: a test command that runs without a shell, test
    files (and a script it starts) that exist in the project, a --target that names a function
    of it, no installed copy of the project's own package shadowing its source
    (installed.py). `test_command` None: none (a checker alone is the specification). Raises
    InputError."""
    if test_command is not None and (not isinstance(test_command, str) or not test_command.strip()):
        raise InputError("the test command is empty: give one, e.g. --test 'python -m pytest -q'")
    command = parse_test_command(test_command) if test_command is not None else None
    snapshot = read_project(project)
    for path in _named_files(command) if command is not None else []:
        if not paths_named(path.removeprefix("./"), snapshot.files):
            raise InputError(f"test command {test_command!r}: {path} is not in the project {snapshot.root}")
    chosen = parse_target(target) if target else None
    if chosen is not None:
        _check_target(chosen, snapshot)
    env = find_python(snapshot.root, python=python)
    refuse_installed_copy(snapshot.files, snapshot.root, str(env.interpreter) if env else None)
    if command is not None and env is not None and env.source.startswith("project "):
        command = on_environment(command, env.interpreter)
    return ProjectTask(snapshot, command, str(env.interpreter) if env else None, chosen)


def _named_files(command: TestCommand) -> list[str]:
    """The test files a command names (and the script it starts), as it names them."""
    named = [arg.split("::", 1)[0] for arg in command.pytest_args if not arg.startswith("-")]
    named = [path for path in named if path.endswith(".py")]
    if command.argv[0] in ("sh", "bash") and len(command.argv) > 1 and not command.argv[1].startswith("-"):
        named.append(command.argv[1])  # the script
    return named


def on_environment(command: TestCommand, interpreter: Path) -> TestCommand:
    """pytest behind a launcher that would only choose the project's own environment (`uv run
    pytest ARGS`, `poetry run python -m pytest ARGS`, no launcher option given; the project has
    that environment, `.venv` or `venv`, whose python is `interpreter`) as `python -m pytest
    ARGS` on it, wherever the launcher is: one on the user's PATH is not in the sandbox, and uv
    in the environment would sync it, which the sandbox keeps read-only (the environment is used
    as it is, synced). `uv run` given options of its own runs as given, with its no-sync switch.
    The command as given otherwise (hatch keeps its environments elsewhere)."""
    program = PurePosixPath(command.argv[0]).name
    if command.pytest_at is None or command.direct or program not in ENVIRONMENT_LAUNCHERS:
        return command
    if not command.argv[2].startswith("-"):
        return TestCommand(("python", "-m", "pytest", *command.pytest_args), 3)
    if program == "uv" and command.argv[1] == "run" and NO_SYNC not in command.argv[:command.pytest_at]:
        return TestCommand((*command.argv[:2], NO_SYNC, *command.argv[2:]), command.pytest_at + 1)
    return command


def check_executable(command: TestCommand, interpreter: str | None, what: str = "test command") -> None:
    """InputError when the local sandbox could not find the test command's program: a name
    found neither in the bin folder of the project's Python (`interpreter`) nor on the
    sandbox's PATH; a path that does not exist. pytest itself runs on the interpreter, and
    python and python3 are always there (links to it)."""
    program = command.argv[0]
    if command.direct or PYTHON.match(program):
        return
    if "/" in program:
        if not Path(program).exists():
            raise InputError(f"{what}: {program} does not exist")
        return
    folders = [os.path.dirname(interpreter)] if interpreter else []
    if shutil.which(program, path=os.pathsep.join([*folders, SANDBOX_PATH])) is None:
        if command.pytest_at is not None:
            works = shlex.join(("python", "-m", "pytest", *command.pytest_args))
        else:  # a checker is a module of the project's environment too (python -m mypy ...)
            works = "python -m pytest -q" if what == "test command" else shlex.join(("python", "-m", *command.argv))
        raise InputError(
            f"{what}: {program!r} is not installed: it is neither in the project's Python's bin "
            f"folder nor on the sandbox's PATH ({SANDBOX_PATH}); give {works!r} (on the project's "
            "own environment, as it is), or install it there"
        )


def _check_target(target: Target, snapshot: Snapshot) -> None:
    if target.file not in snapshot.files:
        raise InputError(f"--target {target.file}::{target.function}: {target.file} is not in the project")
    *_, name = target.function.split(".")
    if not re.search(rf"\bdef\s+{re.escape(name)}\b", snapshot.files[target.file]):
        raise InputError(f"--target {target.file}::{target.function}: no function {name} in {target.file}")
