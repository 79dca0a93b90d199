"""The project form of a task, checked before any model call: a folder, its test command, and
optionally the function to repair and the interpreter to run on."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import PurePosixPath

from codeheal.errors import InputError
from codeheal.project.edits import Target, parse_target, paths_named
from codeheal.project.snapshot import Snapshot, find_python, read_project

PYTHON = re.compile(r"^python(3(\.\d+)?)?$")
DEFAULT_TASK = "The project's tests fail. Fix the code so that they pass, changing as little as possible."


@dataclass(frozen=True)
class ProjectTask:
    """A project read into memory, the pytest arguments of its test command, and its Python."""

    snapshot: Snapshot
    pytest_args: tuple[str, ...]
    interpreter: str | None
    """None: the sandbox's own interpreter (codeheal's)."""
    target: Target | None


def pytest_args(test_command: str) -> tuple[str, ...]:
    """The arguments pytest gets from a test command: `pytest ARGS`, or `python -m pytest ARGS`
    (also python3, python3.12). The command runs without a shell. InputError for any other."""
    try:
        argv = shlex.split(test_command)
    except ValueError as exc:
        raise InputError(f"test command {test_command!r}: {exc}") from None
    if argv[:1] in (["pytest"], ["py.test"]):
        return tuple(argv[1:])
    if len(argv) >= 3 and PYTHON.match(PurePosixPath(argv[0]).name) and argv[1:3] == ["-m", "pytest"]:
        return tuple(argv[3:])
    raise InputError(
        f"test command {test_command!r}: codeheal runs the project's tests with pytest; write "
        "`python -m pytest ARGS` or `pytest ARGS` (no shell: no pipes, `&&` or variables)"
    )


def load_project(
    project: str, test_command: str, *, target: str | None = None, python: str | None = None
) -> ProjectTask:
    """Read the project and check its input: a test command pytest can run, test files
    that exist in the project, a --target that names a function of it. Raises InputError."""
    if not isinstance(test_command, str) or not test_command.strip():
        raise InputError("the test command is empty: give one, e.g. --test 'python -m pytest -q'")
    args = pytest_args(test_command)
    snapshot = read_project(project)
    for arg in args:
        path = arg.split("::", 1)[0]
        if not arg.startswith("-") and path.endswith(".py") and not paths_named(path.removeprefix("./"), snapshot.files):
            raise InputError(f"test command {test_command!r}: {path} is not in the project {snapshot.root}")
    chosen = parse_target(target) if target else None
    if chosen is not None:
        _check_target(chosen, snapshot)
    env = find_python(snapshot.root, python=python)
    return ProjectTask(snapshot, args, str(env.interpreter) if env else None, chosen)


def _check_target(target: Target, snapshot: Snapshot) -> None:
    if target.file not in snapshot.files:
        raise InputError(f"--target {target.file}::{target.function}: {target.file} is not in the project")
    *_, name = target.function.split(".")
    if not re.search(rf"\bdef\s+{re.escape(name)}\b", snapshot.files[target.file]):
        raise InputError(f"--target {target.file}::{target.function}: no function {name} in {target.file}")
