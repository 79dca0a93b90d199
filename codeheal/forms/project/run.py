"""A project-form run's facts, computed once and read by every later step: the parsed test
command and --target, the workspace's key and interpreter (at prepare), then the project as it
is, tested, and the repair's scope (after attempt 1). The record travels in state and with each
candidate's test; it is plain data, so checkpointers save it (the files stay outside state:
workspace_store.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from codeheal.forms.project.edits import Target
from codeheal.forms.project.failing_first import failing_first
from codeheal.forms.project.repair_context import (
    is_test_file,
    primary_function,
    repair_scope,
)
from codeheal.forms.project.task import ProjectTask, TestCommand
from codeheal.forms.project.workspace_store import keep, workspace_files
from codeheal.state import ChangedDefinition, CheckFailure, FormRun, SuspiciousLine


@dataclass(frozen=True)
class AsIs:
    """The project as it is, tested (attempt 1): what every repair is shown and must pass."""

    failures: tuple[CheckFailure, ...]
    """Its failures, which every repair prompt shows (its error as one when no test failed)."""
    tests_ran: tuple[str, ...]
    """The node ids of the tests that ran: a repair must run and pass each."""
    tests_failed: tuple[str, ...]
    """The node ids of the tests that failed: a repair runs them first."""
    seconds: float
    """How long its test run took: the base of a repair's time limit."""
    suspicious: tuple[SuspiciousLine, ...]
    """Its lines, most likely to hold the defect first."""

    def __post_init__(self) -> None:
        # A checkpoint gives sequences back as lists.
        for name in ("failures", "tests_ran", "tests_failed", "suspicious"):
            object.__setattr__(self, name, tuple(getattr(self, name)))


@dataclass(frozen=True)
class RepairScope:
    """What a repair may change and where it most likely starts, from the failures of the
    project as it is (repair_context.repair_scope, primary_function)."""

    functions: tuple[tuple[str, str], ...] | None
    """(path, function name) pairs a repair may change; None: not known, nothing ruled out."""
    primary: tuple[str, str] | None
    """The function a prefilled reply starts with: (path, its `def` lines)."""
    hints: tuple[Target, ...]
    """What settles a name a reply defines in several places: the --target, then the project
    functions on the failing traceback, innermost first."""

    def __post_init__(self) -> None:
        if self.functions is not None:
            object.__setattr__(self, "functions", tuple(tuple(pair) for pair in self.functions))
        if self.primary is not None:
            object.__setattr__(self, "primary", tuple(self.primary))
        object.__setattr__(self, "hints", tuple(self.hints))

    def refusal(self, changed: list[ChangedDefinition]) -> str | None:
        """Why a change is refused before its test: it edits the tests, or a function the
        failing tests do not reach; None when it is inside the scope."""
        touched = sorted({c["file"] for c in changed if is_test_file(c["file"])})
        if touched:
            return f"the reply changes {', '.join(touched)}, part of the tests: fix the code under test, never the tests"
        outside = [f"{c['file']}::{c['name']}" for c in changed if not self._allows(c)]
        if outside:
            return (f"the reply changes {', '.join(outside)}, which the failing tests do not reach: change "
                    "only the functions on the failing path")
        return None

    def _allows(self, change: ChangedDefinition) -> bool:
        if self.functions is None:
            return True
        if change["kind"] in ("function", "method"):
            return (change["file"], change["name"].rsplit(".", 1)[-1]) in self.functions
        return change["file"] in {path for path, _ in self.functions}  # an import, or a small file rewritten whole


@dataclass(frozen=True)
class ProjectRun(FormRun):
    """The facts of one project-form run."""

    project: str
    test_command: str
    """As the user wrote it (prompts and messages show it)."""
    command: TestCommand
    target: Target | None
    workspace_key: str
    interpreter: str | None
    """None: the sandbox's own interpreter (codeheal's)."""
    as_is: AsIs | None = None
    """Set once the project as it is was tested."""
    scope: RepairScope | None = None
    """Set with `as_is`."""
    first_command: TestCommand | None = None
    """Set with `as_is`: the test command narrowed to the tests that failed on the project as it
    is, which a repair runs first (failing_first); None: the whole command alone."""

    @property
    def files(self) -> Mapping[str, str]:
        """The project's files as the run read them."""
        return workspace_files(self.project, self.workspace_key)

    @property
    def targets(self) -> list[Target]:
        """The --target, as a list (empty without one)."""
        return [self.target] if self.target is not None else []

    def scoped(self) -> ProjectRun:
        """The record with what follows from the project as it is (`as_is`, set): the repair's
        scope and the command a repair runs first."""
        as_is = self.as_is
        assert as_is is not None
        files = self.files
        failures = list(as_is.failures)
        scope = repair_scope(failures, files, targets=self.targets)
        frames = [
            Target(frame["file"], frame["function"])
            for failure in failures
            for frame in reversed(failure["frames"])
            if not is_test_file(frame["file"])
        ]
        return replace(self, scope=RepairScope(
            functions=None if scope is None else tuple(sorted(scope)),
            primary=primary_function(failures, files, targets=self.targets),
            hints=(*self.targets, *frames),
        ), first_command=failing_first(self.command, as_is.tests_failed, as_is.tests_ran, files))


def started(project: str, test_command: str, task: ProjectTask) -> ProjectRun:
    """The record of a run whose input was read and checked (task.load_project); its files
    kept by content key."""
    return ProjectRun(
        project=project, test_command=test_command, command=task.command, target=task.target,
        workspace_key=keep(task.snapshot.files), interpreter=task.interpreter,
    )


def run_of(state: Mapping) -> ProjectRun:
    """The project-form run's record in `state` (or in a candidate's test job)."""
    return state["form_run"]
