"""Failing tests as diagnostics: each at the innermost line of its traceback that lies in the
project, with the failure's message; a failure with no such line (a collection error, a
crash) is put at the top of the test's file."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from lsprotocol import types

from codeheal.state import CheckFailure

SOURCE = "codeheal"


def place(root: Path, failure: CheckFailure) -> tuple[Path, int] | None:
    """The file and 0-based line where `failure` happens: its innermost frame in a file of the
    project; else line 0 of the test's own file; None when neither is in the project."""
    for frame in reversed(failure["frames"]):
        path = _in_project(root, frame["file"])
        if path is not None and frame["line"] > 0:
            return path, frame["line"] - 1
    test_file = _in_project(root, failure["test"].split("::")[0])
    return (test_file, 0) if test_file is not None else None


def message(failure: CheckFailure) -> str:
    """What the editor shows: the test, then what went wrong."""
    what = f"{failure['exception']}: {failure['message']}" if failure["message"] else failure["exception"]
    if failure["expected"] is not None and failure["actual"] is not None:
        what += f" (expected {failure['expected']}, got {failure['actual']})"
    return f"{failure['test']} failed: {what}"


def diagnostics(root: Path, failures: list[CheckFailure], lines_of: dict[Path, list[str]]) -> dict[Path, list[types.Diagnostic]]:
    """The diagnostics of `failures`, by file; `lines_of` gives a file's lines (to span the
    failing line from its first non-blank character), read from disk when absent."""
    found: dict[Path, list[types.Diagnostic]] = defaultdict(list)
    for failure in failures:
        where = place(root, failure)
        if where is None:
            continue
        path, line = where
        if path not in lines_of:
            lines_of[path] = _read_lines(path)
        text = lines_of[path][line] if line < len(lines_of[path]) else ""
        start = len(text) - len(text.lstrip())
        found[path].append(types.Diagnostic(
            range=types.Range(types.Position(line, start), types.Position(line, max(len(text), start))),
            message=message(failure),
            severity=types.DiagnosticSeverity.Error,
            source=SOURCE,
            code=failure["test"],
        ))
    return dict(found)


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
