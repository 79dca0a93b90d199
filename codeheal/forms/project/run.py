"""A project-form run's facts, computed once and read by every later step: the parsed test
command and --target, the workspace's key and interpreter (at prepare), then the project as it
is, tested (attempt 1), and what follows from it: the repair's scope and the command a repair
runs first. The record travels in state and with each candidate's test as plain, typed data,
so every checkpointer saves and loads it as it is (the files stay outside state:
workspace_store.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from typing_extensions import (
    NotRequired,
    TypedDict,  # pydantic (Studio's schemas) needs it on Python < 3.12
)

from codeheal.forms.project.checker import Diagnostic
from codeheal.forms.project.edits import Target
from codeheal.forms.project.failing_first import failing_first
from codeheal.forms.project.repair_context import primary_function, repair_scope
from codeheal.forms.project.rewrites import RewriteTrail
from codeheal.forms.project.syntax_slips import Slip
from codeheal.forms.project.task import ProjectTask, TestCommand
from codeheal.forms.project.test_paths import is_test_file
from codeheal.forms.project.workspace_store import keep, workspace_files
from codeheal.state import ChangedDefinition, CheckFailure, FormRun, State, SuspiciousLine


class CommandWords(TypedDict):
    """A test command as parsed (task.TestCommand): its words and where its pytest's start."""

    argv: list[str]
    pytest_at: int | None


class CheckCommand(TypedDict):
    """`--check CMD`: the static checker whose errors are failures too (checker.py)."""

    text: str
    """As the user wrote it."""
    argv: list[str]


class Place(TypedDict):
    """A function of the project: `--target FILE::FUNC`, or a traceback frame's."""

    file: str
    function: str
    line: NotRequired[int]
    """A traceback frame's line (none for the --target)."""


class PrimaryFunction(TypedDict):
    """The function a prefilled reply starts with."""

    path: str
    header: str
    """Its `def` lines, up to the colon."""


class AsIs(TypedDict):
    """The project as it is, tested (attempt 1): what every repair is shown and must pass."""

    failures: list[CheckFailure]
    """Its failures, which every repair prompt shows (its error as one when no test failed)."""
    tests_ran: list[str]
    """The node ids of the tests that ran: a repair must run and pass each."""
    tests_failed: list[str]
    """The node ids of the tests that failed: a repair runs them first."""
    seconds: float | None
    """How long its test run took: the base of a repair's time limit; None when it did not
    finish within its limit (a hang is most often the defect: repairs get the default limit,
    not a multiple of the one the hang ran into)."""
    suspicious: list[SuspiciousLine]
    """Its lines, most likely to hold the defect first."""
    executed: NotRequired[dict[str, list[str]]]
    """Path -> the project functions the failing tests executed (executed.py): in the repair's
    scope however the tests reached them; absent in a run checkpointed before it was kept."""
    diagnostics: NotRequired[list[Diagnostic]]
    """With --check: the checker's errors in the project as it is, which a change may fix and
    must not add to (checker.py)."""
    slip: NotRequired[Slip]
    """The project module that does not parse and kept the tests from running, where the
    parser stopped (syntax_slips.py); absent when every module parses."""
    test_limits: NotRequired[dict[str, float]]
    """Node id -> the time limit of that test in a candidate's run, learned from its seconds
    here (test_limits.learned_limits); absent in a run checkpointed before there were any."""


class RepairScope(TypedDict):
    """What a repair may change and where it most likely starts, from the failures of the
    project as it is (repair_context.repair_scope, primary_function)."""

    functions: dict[str, list[str]] | None
    """Path -> the names of its functions a repair may change; None: not known, nothing ruled out."""
    primary: PrimaryFunction | None
    hints: list[Place]
    """What settles a name a reply defines in several places: the --target, then the project
    functions on the failing traceback, innermost first."""


class ProjectRun(FormRun):
    """The facts of one project-form run."""

    project: str
    test_command: str
    """As the user wrote it (prompts and messages show it)."""
    command: CommandWords | None
    """None: no test command, the checker alone is the specification (`check`)."""
    check: NotRequired[CheckCommand]
    """With --check: the checker; absent without one."""
    target: Place | None
    workspace_key: str
    root: str
    """The project's absolute path on the host: where the sandbox shows the copy, and runs from."""
    folders: list[str]
    """The project's empty folders, made in the copy too."""
    interpreter: str | None
    """None: the sandbox's own interpreter (codeheal's)."""
    as_is: AsIs | None
    """Set once the project as it is was tested."""
    scope: RepairScope | None
    """Set after `as_is`."""
    first_command: CommandWords | None
    """Set after `as_is`: the test command narrowed to the tests that failed on the project as it
    is, which a repair runs first (failing_first); None: the whole command alone."""
    rewrites: NotRequired[RewriteTrail]
    """How the model's whole-function rewrites ended so far (rewrites.py); absent before the
    first repair attempt."""


def started(project: str, test_command: str, task: ProjectTask, check: CheckCommand | None = None) -> ProjectRun:
    """The record of a run whose input was read and checked (task.load_project); its files
    kept by content key."""
    target = task.target
    return ProjectRun(
        project=project, test_command=test_command, command=words(task.command) if task.command else None,
        **({"check": check} if check is not None else {}),
        target=Place(file=target.file, function=target.function) if target else None,
        workspace_key=keep(task.snapshot.files, task.snapshot.data), root=str(task.snapshot.root),
        folders=sorted(task.snapshot.folders), interpreter=task.interpreter,
        as_is=None, scope=None, first_command=None,
    )


def run_of(state: State) -> ProjectRun:
    """The project-form run's record in `state` (a candidate's test job has it as `form_run`)."""
    return state.form_run  # type: ignore[return-value]


def files_of(run: ProjectRun) -> Mapping[str, str]:
    """The project's files as the run read them."""
    return workspace_files(run["project"], run["workspace_key"])


def targets_of(run: ProjectRun) -> list[Target]:
    """The --target, as a list (empty without one)."""
    return [Target(run["target"]["file"], run["target"]["function"])] if run["target"] else []


def command_of(command: CommandWords) -> TestCommand:
    """The parsed test command of a record."""
    return TestCommand(tuple(command["argv"]), command["pytest_at"])


def words(command: TestCommand) -> CommandWords:
    """A parsed test command as the record keeps it."""
    return CommandWords(argv=list(command.argv), pytest_at=command.pytest_at)


def scoped(run: ProjectRun) -> ProjectRun:
    """The record with what follows from the project as it is (`as_is`, set): the repair's
    scope and the command a repair runs first."""
    as_is = run["as_is"]
    assert as_is is not None
    files = files_of(run)
    failures, targets = as_is["failures"], targets_of(run)
    scope = repair_scope(failures, files, targets=targets, suspicious=as_is["suspicious"])
    primary = primary_function(failures, files, targets=targets)
    frames = [
        Place(file=frame["file"], function=frame["function"], line=frame["line"])
        for failure in failures
        for frame in reversed(failure["frames"])
        if not is_test_file(frame["file"])
    ]
    functions: dict[str, list[str]] | None = None
    if scope is not None:
        functions = {}
        for path, name in sorted(scope):
            functions.setdefault(path, []).append(name)
        for path, names in as_is.get("executed", {}).items():  # what the failing tests ran is on their path
            functions[path] = sorted({*functions.get(path, []), *names})
        if "slip" in as_is:  # the module that does not parse is repaired whole
            functions.setdefault(as_is["slip"]["file"], [])
    first = failing_first(command_of(run["command"]), as_is["tests_failed"], as_is["tests_ran"], files) \
        if run["command"] is not None else None
    return ProjectRun(**{**run, "scope": RepairScope(
        functions=functions,
        primary=PrimaryFunction(path=primary[0], header=primary[1]) if primary else None,
        hints=[*([run["target"]] if run["target"] else []), *frames],
    ), "first_command": words(first) if first is not None else None})


def scope_pairs(scope: RepairScope | None) -> set[tuple[str, str]] | None:
    """The scope's functions as (path, name) pairs; None when the scope is not known."""
    if scope is None or scope["functions"] is None:
        return None
    return {(path, name) for path, names in scope["functions"].items() for name in names}


def hints_of(run: ProjectRun) -> list[Target]:
    """What settles an ambiguous name in a reply: the scope's hints once known, else the --target."""
    scope = run["scope"]
    if scope is None:
        return targets_of(run)
    return [Target(place["file"], place["function"], place.get("line")) for place in scope["hints"]]


def refusal(scope: RepairScope | None, changed: Sequence[ChangedDefinition]) -> str | None:
    """Why a change is refused before its test: it edits the tests, or a function the failing
    tests do not reach; None when it is inside the scope."""
    touched = sorted({c["file"] for c in changed if is_test_file(c["file"])})
    if touched:
        return f"the reply changes {', '.join(touched)}, part of the tests: fix the code under test, never the tests"
    functions = scope["functions"] if scope is not None else None
    if functions is None:
        return None
    outside = [f"{c['file']}::{c['name']}" for c in changed if not _allowed(c, functions)]
    if outside:
        return (f"the reply changes {', '.join(outside)}, which the failing tests do not reach: change "
                "only the functions on the failing path")
    return None


def _allowed(change: ChangedDefinition, functions: dict[str, list[str]]) -> bool:
    if change["kind"] in ("function", "method"):
        return change["name"].rsplit(".", 1)[-1] in functions.get(change["file"], [])
    return change["file"] in functions  # an import, or a small file rewritten whole
