"""The regression check: before a change that passes the test command is called a heal, the
tests beyond that command that exercise the changed code run too, on the changed copy, and a
test that passed on the project as it is and fails with the change, or fails with it and did
not fail as it is (one the defect kept from loading), makes it no heal. Which
tests (ProjectSettings.regression): those whose run of the project as it is executed the
changed code (`runs`: the whole suite run once on the project as it is with each test's line
coverage, so pytest's own rules collect them: any `python_files`, doctests, fixtures, dynamic
imports), the test files that import the changed modules, directly
or through other modules of the project (`importers`, read from the project as it is), the
project's whole suite (`suite`: the command with its test paths left out, so pytest collects
what its configuration names), or none. Only where pytest is visible in the command: another
command cannot be told which files to run."""

from __future__ import annotations

import ast
import difflib
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from codeheal.evaluation.coverage import CoverageByTest, coverage_by_test
from codeheal.forms.project.executed import function_spans
from codeheal.forms.project.failing_first import VALUE_OPTIONS
from codeheal.forms.project.job import judged_run
from codeheal.forms.project.test_paths import is_test_file
from codeheal.settings.project import Regression
from codeheal.forms.project.run import ProjectRun
from codeheal.forms.project.task import TestCommand
from codeheal.forms.project.workspace_store import Workspace
from codeheal.sandboxes.base import Sandbox
from codeheal.state import CheckFailure, Feedback
from codeheal.steps import Steps

SHOWN_FILES = 3
"""How many of the checked test files a description names."""


@dataclass(frozen=True)
class RegressionRun:
    """What the check runs for one change: `command` (None: nothing beyond the test command),
    and what it covers, in words (progress, --json, the feedback)."""

    command: TestCommand | None
    covers: str


def regression_steps(
    sandbox: Sandbox, run: ProjectRun, workspace: Workspace, command: TestCommand, changed: Mapping[str, str],
    named: Feedback, mode: Regression, limit: float, session: str | None,
) -> Steps[Feedback]:
    """A change to the run's `workspace` that passed its test `command` (`named`, its
    feedback), checked (regression_run): the tests beyond the command run on the changed copy; when one fails, the same run on the
    project as it is (once per run and command) tells which passed there, and a change that
    breaks one is a failed attempt naming them. The feedback says what was checked."""
    files = workspace.files
    if mode == "runs" and command.pytest_at is not None and _split_args(command, files)[1]:
        baseline = yield from _baseline(sandbox, run, workspace, command, limit, session)
        check = ran_changed(command, baseline, run, files, changed)
    else:
        baseline, check = None, regression_run(command, mode, files, changed)
    if check.command is None:
        return Feedback(**{**named, "checked": check.covers})
    after, _ = yield from judged_run(sandbox, workspace._replace(files={**files, **changed}), check.command, limit, session, run, None)
    if not after["passed"] and baseline is not None:
        broken = broken_tests(_among(baseline.feedback, check.command.argv), after)
        if broken:
            return regression_feedback(named, after, broken, check.covers)
    elif not after["passed"]:
        key = (run["project"], run["workspace_key"], check.command.argv)
        if key not in _BEFORE:
            _BEFORE[key], _ = yield from judged_run(sandbox, workspace, check.command, limit, session, run, None)
            if len(_BEFORE) > BEFORE_KEPT:
                del _BEFORE[next(iter(_BEFORE))]
        broken = broken_tests(_BEFORE[key], after)
        if broken:
            return regression_feedback(named, after, broken, check.covers)
    still = sorted(set(after.get("tests_failed") or []))
    verb = "fails" if len(still) == 1 else "fail"
    left = f"; {len(still)} failed before the change and still {verb} ({_listed(still)})" if still else ""
    return Feedback(**{**named, "seconds": round(named["seconds"] + after["seconds"], 3),
                       "checked": f"{check.covers}: {len(_passed(after))} passed{left}"})


def _listed(names: list[str], shown: int = SHOWN_FILES) -> str:
    """The first `shown` of `names`, and how many more."""
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


BEFORE_KEPT = 64
_BEFORE: dict[tuple[str, str, tuple[str, ...]], Feedback] = {}
"""The check's run on the project as it is, by run and command: the baseline a failing check is read against."""


@dataclass(frozen=True)
class Baseline:
    """The whole suite (the command without its test paths) run on the project as it is, with
    each test's line coverage: which tests run the changed code, and how they did before."""

    feedback: Feedback
    coverage: CoverageByTest


_BASELINES: dict[tuple[str, str, tuple[str, ...]], Baseline] = {}
"""The baseline by run and command, run once per run (the first change that passes the command)."""


def _baseline(
    sandbox: Sandbox, run: ProjectRun, workspace: Workspace, command: TestCommand, limit: float, session: str | None,
) -> Steps[Baseline]:
    kept, _ = _split_args(command, workspace.files)
    suite = TestCommand((*command.argv[: command.pytest_at], *kept), command.pytest_at)
    key = (run["project"], run["workspace_key"], suite.argv)
    if key not in _BASELINES:
        feedback, result = yield from judged_run(sandbox, workspace, suite, limit, session, run, None, coverage=True)
        _BASELINES[key] = Baseline(feedback, coverage_by_test(result))
        if len(_BASELINES) > BEFORE_KEPT:
            del _BASELINES[next(iter(_BASELINES))]
    return _BASELINES[key]


def ran_changed(
    command: TestCommand, baseline: Baseline, run: ProjectRun, files: Mapping[str, str], changed: Mapping[str, str],
) -> RegressionRun:
    """The run of the tests beyond `command` that executed the changed code on the project as it
    is (`baseline`'s coverage: a changed function's body, or any line of a module changed outside
    its functions), by node id; those the command ran left out."""
    spans = changed_spans(files, changed)
    ran = set((run["as_is"] or {}).get("tests_ran") or [])
    selected = sorted(
        test for test, by_file in baseline.coverage.items()
        if test not in ran and any(first <= n <= last for path, lines in by_file.items()
                                   for first, last in spans.get(path, ()) for n in lines)
    )
    checked = len(baseline.coverage)
    if not selected:
        return RegressionRun(None, f"the test command (no other of the suite's {checked} tests ran the changed code)")
    kept, _ = _split_args(command, files)
    named = selected if len(selected) <= IDS_NAMED else sorted({test.split("::", 1)[0] for test in selected})
    shown = _listed(sorted({test.split("::", 1)[0] for test in selected}))
    return RegressionRun(TestCommand((*command.argv[: command.pytest_at], *kept, *named), command.pytest_at),
                         f"{len(selected)} other test(s) that ran the changed code ({shown})")


IDS_NAMED = 400
"""Beyond this many tests, the check names their files instead of their node ids."""


def changed_spans(files: Mapping[str, str], changed: Mapping[str, str]) -> dict[str, list[tuple[int, int]]]:
    """Path -> the line spans of the project as it is whose execution a change of `changed`
    touches: the body of each function it changes, and the whole module when it changes a line
    outside its functions."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for path, text in changed.items():
        before = files.get(path, "")
        functions = [(first, last) for _, first, last in function_spans(before)]
        matcher = difflib.SequenceMatcher(None, before.splitlines(), text.splitlines(), autojunk=False)
        for tag, i1, i2, _, _ in matcher.get_opcodes():
            if tag == "equal":
                continue
            lines = range(i1, i1 + 1) if tag == "insert" else range(i1 + 1, i2 + 1)  # an insert: after line i1
            around = [(first, last) for first, last in functions if any(first - 1 <= n <= last for n in lines)]
            spans.setdefault(path, []).extend(around or [(1, max(len(before.splitlines()), 1))])
    return spans


def _among(feedback: Feedback, argv: Collection[str]) -> Feedback:
    """The baseline's outcome of the tests the check names (by node id or file) alone."""
    named = [word for word in argv if "::" in word or word.endswith(".py")]

    def kept(test: str) -> bool:
        return any(test == word or test.startswith(word + "::") for word in named)

    return Feedback(**{**feedback, "tests_ran": [t for t in feedback.get("tests_ran") or [] if kept(t)],
                       "tests_failed": [t for t in feedback.get("tests_failed") or [] if kept(t)]})


def regression_run(
    command: TestCommand, mode: Regression, files: Mapping[str, str], changed: Collection[str]
) -> RegressionRun:
    """The run that checks a change of the `changed` paths of the project `files` (as it is)
    against the tests beyond `command`, by `mode`."""
    if mode == "none":
        return RegressionRun(None, "the test command only (regression check off)")
    if command.pytest_at is None:
        return RegressionRun(None, "the test command only (pytest is not visible in it: no other tests can be named)")
    kept, named = _split_args(command, files)
    if not named:
        return RegressionRun(None, "the test command, which runs the whole suite")
    if mode == "suite":
        return RegressionRun(TestCommand((*command.argv[: command.pytest_at], *kept), command.pytest_at),
                             "the whole suite")
    others = [path for path in importers(files, changed) if not _covered(path, named)]
    if not others:
        return RegressionRun(None, "the test command (no other test file imports the changed modules)")
    shown = _listed(others)
    return RegressionRun(TestCommand((*command.argv[: command.pytest_at], *kept, *others), command.pytest_at),
                         f"{len(others)} other test file(s) that import the changed modules ({shown})")


def importers(files: Mapping[str, str], changed: Collection[str]) -> list[str]:
    """The test modules of the project `files` that import a module of `changed` (paths),
    directly or through other modules of the project (a package's `__init__` included)."""
    modules = _module_names(files)
    edges = {path: _imported_paths(path, text, modules, files) for path, text in files.items() if path.endswith(".py")}
    targets = set(changed)
    found = []
    for path in sorted(edges):
        name = PurePosixPath(path).name
        if not is_test_file(path) or name == "conftest.py" or not (name.startswith("test") or name.endswith("_test.py")):
            continue
        seen, todo = {path}, [path]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        if seen & targets:
            found.append(path)
    return found


def broken_tests(before: Feedback, after: Feedback) -> list[str]:
    """The tests the change breaks: those that passed in `before` (the project as it is) and do
    not pass in `after` (failed, or no longer ran), and those that fail in `after` and did not
    fail in `before` (a test the defect kept from running, its file not loading, is no excuse);
    when `after` ran no test at all and `before` did, its error as one."""
    broken = (_passed(before) - _passed(after)) | (set(after.get("tests_failed") or []) - set(before.get("tests_failed") or []))
    if not after["passed"] and not after.get("tests_ran") and before.get("tests_ran") and not broken:
        broken = {f"(the run: {(after['error'] or 'no test ran').splitlines()[0]})"}
    return sorted(broken)


def regression_feedback(named: Feedback, check: Feedback, broken: list[str], covers: str) -> Feedback:
    """A change's feedback when it passes the test command and breaks `broken` tests that the
    check (`check`, covering `covers`) ran: a failed attempt naming them."""
    failures: list[CheckFailure] = [f for f in check["failures"] if f["test"] in broken or not f["test"]]
    shown = _listed(broken, 5)
    error = (f"the tests of the test command pass, but the change breaks {len(broken)} test(s) that passed on "
             f"the project as it is, in {covers}: {shown}")
    return Feedback(**{
        **named, "passed": False, "error": error, "failures": failures or named["failures"],
        "total": named["total"] + len(broken), "seconds": round(named["seconds"] + check["seconds"], 3),
        "timed_out": check["timed_out"], "checked": covers,
    })


def _passed(feedback: Feedback) -> set[str]:
    return set(feedback.get("tests_ran") or []) - set(feedback.get("tests_failed") or [])


def _split_args(command: TestCommand, files: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The command's pytest arguments that are not test paths, and the test paths (a file, a
    folder or a node id of the project)."""
    args = command.pytest_args
    kept, named = [], []
    for i, word in enumerate(args):
        path = word.split("::", 1)[0].removeprefix("./").rstrip("/")
        is_path = not word.startswith("-") and not (i and args[i - 1] in VALUE_OPTIONS) and (
            path in (".", "") or path in files or any(p.startswith(path + "/") for p in files))
        (named if is_path else kept).append(word)
    return kept, named


def _covered(path: str, named: list[str]) -> bool:
    """Whether the command's test paths run all of the test file `path` (a node id runs part of it)."""
    for word in named:
        if "::" in word:
            continue
        place = word.removeprefix("./").rstrip("/")
        if place in (".", "") or path == place or path.startswith(place + "/"):
            return True
    return False


def _module_names(files: Mapping[str, str]) -> dict[str, list[str]]:
    """Dotted module name -> the project's paths it may name: each path as a module from the
    project's root, from below a `src/` folder, and from every folder whose way down to the
    file is a chain of packages."""
    names: dict[str, list[str]] = {}
    for path in files:
        if not path.endswith(".py"):
            continue
        parts = list(PurePosixPath(path).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        folders = PurePosixPath(path).parts[:-1]
        for start in range(len(parts)):
            packaged = all("/".join(folders[: i + 1]) + "/__init__.py" in files for i in range(start, len(folders)))
            if parts[start:] and (start == 0 or packaged or folders[start - 1] == "src"):
                names.setdefault(".".join(parts[start:]), []).append(path)
    return names


def _imported_paths(path: str, text: str, modules: Mapping[str, list[str]], files: Mapping[str, str]) -> set[str]:
    """The project's paths the module `path` imports (each package on the way included)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return set()
    package = list(PurePosixPath(path).parts[:-1])  # a module's package, or an __init__'s own
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                prefix = ".".join([*base, *([node.module] if node.module else [])])
            else:
                prefix = node.module or ""
            names = [prefix, *(f"{prefix}.{alias.name}" for alias in node.names)]
        else:
            continue
        for name in names:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                found.update(modules.get(".".join(parts[:i]), ()))
    found.discard(path)
    return found
