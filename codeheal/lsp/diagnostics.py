"""Failing tests as diagnostics where they fail: at the innermost line of the traceback that lies
in the project's own code (not its tests), the file the user edits, with related information
pointing at the test's line (its assert, or the import that failed); a syntax error or a
collection error in the project's code is a failure whose traceback ends at its line
(forms/project/syntax_slips.py), so it lands there too. The test's line keeps a diagnostic of
its own, pointing back at the code. A failure whose traceback never leaves the tests (an assert
on a returned value) is shown at the `def` line of each project function the test's line calls
(called.py; of those the failing tests executed, when their coverage says), else at the test's
line alone; one with no line in the project at all (a crash) at the top of the test's file."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path

from codeheal.forms.project.test_paths import is_test_file
from codeheal.lsp.called import Called, called_functions
from codeheal.state import CheckFailure

SOURCE = "codeheal"


@dataclass(frozen=True)
class Place:
    """A 0-based line of a file of the project."""

    path: Path
    line: int


@dataclass(frozen=True)
class Placed:
    """Where a failure is shown: in the project's code (None when its traceback never leaves
    the tests), and at the test's own line."""

    code: Place | None
    test: Place | None
    called: tuple[Called, ...] = ()
    """When the traceback never leaves the tests: the project functions the test's line calls."""


def place(root: Path, failure: CheckFailure, executed: Mapping[str, Collection[str]] | None = None) -> Placed:
    """The innermost frame of `failure` in the project's code, and the innermost in its tests
    (else line 0 of the test's file, when its name gives one); with no frame in the code, the
    project functions (not its tests') the test's line calls, only those in `executed` (project-relative path
    -> the names of the functions the failing tests executed) when it names any."""
    code = test = None
    for frame in reversed(failure["frames"]):
        path = _in_project(root, frame["file"])
        if path is None or frame["line"] <= 0:
            continue
        if _is_test(root, path):
            test = test or Place(path, frame["line"] - 1)
        else:
            code = code or Place(path, frame["line"] - 1)
    if test is None:
        test_file = _in_project(root, failure["test"].split("::")[0])
        return Placed(code, Place(test_file, 0) if test_file is not None else None)
    if code is not None:
        return Placed(code, test)
    called = [c for c in called_functions(root, test.path, test.line) if not _is_test(root, c.path)]
    if executed:
        called = [c for c in called if c.name.rsplit(".", 1)[-1] in executed.get(_relative(root, c.path), ())]
    return Placed(None, test, tuple(called))


def message(failure: CheckFailure) -> str:
    """What the editor shows: the test, then what went wrong."""
    test = failure["test"]
    fails = "could not be loaded" if "::" not in test and test.endswith(".py") else "failed"
    return f"{test} {fails}: {_what(failure)}"


def _what(failure: CheckFailure) -> str:
    what = f"{failure['exception']}: {failure['message']}" if failure["message"] else failure["exception"]
    if failure["expected"] is not None and failure["actual"] is not None:
        what += f" (expected {failure['expected']}, got {failure['actual']})"
    return what


def diagnostics(
    root: Path, failures: list[CheckFailure], lines_of: dict[Path, list[str]],
    executed: Mapping[str, Collection[str]] | None = None,
) -> dict[Path, list[types.Diagnostic]]:
    """The diagnostics of `failures`, by file; `lines_of` gives a file's lines (to span the
    failing line from its first non-blank character), read from disk when absent; `executed`
    as place takes it. Failures with the same message at the same line (a module that does not
    parse, seen by every test file that imports it) are one diagnostic, which names each test."""
    merged: dict[tuple[Place, str], list[tuple[CheckFailure, Place | None, str]]] = defaultdict(list)
    for failure in failures:
        placed = place(root, failure, executed)
        what = _what(failure)
        if placed.test is not None:
            merged[(placed.test, what)].append((failure, None, ""))
        for where, said_there in _code_places(root, placed):
            merged[(where, what)].append((failure, placed.test, f"the test {failure['test']}"))
            if placed.test is not None:
                merged[(placed.test, what)].append((failure, where, said_there))
    found: dict[Path, list[types.Diagnostic]] = defaultdict(list)
    for (where, what), seen in merged.items():
        tests = list(dict.fromkeys(failure["test"] for failure, _, _ in seen))
        text = message(seen[0][0]) if len(tests) == 1 else f"{', '.join(tests)}: {what}"
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=from_fs_path(str(other.path)) or "", range=_line_range(other, lines_of)),
                message=said,
            )
            for _, other, said in seen if other is not None
        ]
        found[where.path].append(types.Diagnostic(
            range=_line_range(where, lines_of), message=text, severity=types.DiagnosticSeverity.Error,
            source=SOURCE, code=tests[0], related_information=related or None,
        ))
    return dict(found)


def _code_places(root: Path, placed: Placed) -> list[tuple[Place, str]]:
    """Where `placed` is shown in the project's code, each with what the test's diagnostic
    says of it."""
    if placed.code is not None:
        return [(placed.code, f"where it fails: {_relative(root, placed.code.path)} line {placed.code.line + 1}")]
    return [(Place(c.path, c.line), f"{c.name}, which the test's line calls: {_relative(root, c.path)} line {c.line + 1}")
            for c in placed.called]


def _line_range(where: Place, lines_of: dict[Path, list[str]]) -> types.Range:
    """The line from its first non-blank character to its end."""
    if where.path not in lines_of:
        lines_of[where.path] = _read_lines(where.path)
    lines = lines_of[where.path]
    text = lines[where.line] if where.line < len(lines) else ""
    start = len(text) - len(text.lstrip())
    return types.Range(types.Position(where.line, start), types.Position(where.line, max(len(text), start)))


def _is_test(root: Path, path: Path) -> bool:
    return is_test_file(_relative(root, path))


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root.resolve()).as_posix()


def _in_project(root: Path, file: str) -> Path | None:
    if not file:
        return None
    path = Path(file) if Path(file).is_absolute() else root / file
    path = path.resolve()
    return path if root.resolve() in path.parents and path.is_file() else None


def _read_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
