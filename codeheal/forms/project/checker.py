"""A static checker as a specification of the project form (`codeheal fix --check CMD`): its
output read on the host into diagnostics, each a failure at its line in its function, and a
change's diagnostics judged against those of the project as it is.

Read formats: mypy's `-O json` (one object a line), pyright's `--outputjson`, ruff's
`--output-format json`, and otherwise lines `file:line[:col]: severity: message  [code]`
(mypy's, pyright's text) or `file:line:col: CODE message` (ruff's concise). Only errors count
(mypy's notes, pyright's warnings do not). The check holds when the checker exits 0 and
reports no error in the project; a change that adds a diagnostic the project as it is did
not have (by file, code, message and enclosing function: line numbers shift) is refused
(one that hides code from the checker: check_surface.py)."""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath

from typing_extensions import (
    TypedDict,  # pydantic (Studio's schemas) needs it on Python < 3.12
)

from codeheal.evaluation.feedback import feedback_of, strip_ansi
from codeheal.forms.project.repair_context import project_functions
from codeheal.forms.project.test_paths import is_test_file
from codeheal.sandboxes.base import RunResult
from codeheal.state import CheckFailure, Feedback, Frame

TEXT_LINE = re.compile(
    r"^\s*(?P<file>[^\s:][^:]*\.pyi?):(?P<line>\d+)(?::(?P<col>\d+))?(?::|\s+-)\s*(?P<severity>error|warning|note|"
    r"information):\s*(?P<message>.*?)(?:\s+\[(?P<code>[\w.-]+)\]|\s+\((?P<rule>report\w+)\))?\s*$"
)
"""mypy's `shop/a.py:6: error: message  [code]`, pyright's `/abs/a.py:6:12 - error: message (rule)`."""
CODED_LINE = re.compile(r"^\s*(?P<file>[^\s:][^:]*\.pyi?):(?P<line>\d+):(?P<col>\d+):\s+(?P<code>[A-Z]+\d+)\s+(?P<message>.*)$")
"""ruff's concise output: `shop/a.py:9:17: UP045 [*] Use ...`."""
TAIL_LINES = 8


class Diagnostic(TypedDict):
    """One error a checker reported in the project."""

    file: str
    """The project path."""
    line: int
    """1-based."""
    code: str
    """The checker's code for it (`return-value`, `reportReturnType`, `F401`); "" when it gave none."""
    message: str
    function: str
    """The enclosing function (`Cart.total` for a method), or "<module>"."""


def checker_name(argv: Sequence[str]) -> str:
    """What a checker command is called in failures: the module after `-m`, else the program."""
    words = list(argv)
    if "-m" in words[:-1]:
        return words[words.index("-m") + 1]
    return PurePosixPath(words[0]).name


def read_diagnostics(text: str, files: Mapping[str, str], root: str) -> list[Diagnostic] | None:
    """The errors in a checker's output `text` that name files of the project (`files`; paths
    relative to its `root` or absolute under it), in the order printed; None when the output
    holds nothing in a format read here."""
    found = _json_findings(text)
    if found is None:
        found = _text_findings(text)
    if found is None:
        return None
    diagnostics = []
    for path, line, code, message, severity in found:
        project_path = _project_path(path, files, root)
        if project_path is None or severity != "error":
            continue
        line = max(line, 1)  # a file-level error (mypy's line -1, pyright's 0 made 1)
        diagnostics.append(Diagnostic(file=project_path, line=line, code=code, message=message.strip(),
                                      function=enclosing_function(files[project_path], line)))
    return diagnostics


Finding = tuple[str, int, str, str, str]
"""(path as printed, line, code, message, severity)."""


def _json_findings(text: str) -> list[Finding] | None:
    stripped = text.strip()
    try:
        whole = json.loads(stripped) if stripped.startswith(("{", "[")) else None
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and isinstance(whole.get("generalDiagnostics"), list):  # pyright
        return [(d["file"], d["range"]["start"]["line"] + 1, d.get("rule", ""), d["message"], d["severity"])
                for d in whole["generalDiagnostics"] if isinstance(d, dict) and "range" in d]
    if isinstance(whole, list) and all(isinstance(d, dict) and "filename" in d for d in whole):  # ruff
        return [(d["filename"], (d.get("location") or {}).get("row", 1), d.get("code") or "", d["message"], "error")
                for d in whole]
    objects = []
    for line in stripped.splitlines():  # mypy: one object a line
        if not line.startswith("{"):
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(d, dict) and {"file", "line", "message", "severity"} <= d.keys():
            objects.append((d["file"], int(d["line"]), d.get("code") or "", d["message"], d["severity"]))
    return objects or None


def _text_findings(text: str) -> list[Finding] | None:
    found: list[Finding] = []
    for line in strip_ansi(text).splitlines():
        if match := TEXT_LINE.match(line):
            found.append((match["file"], int(match["line"]), match["code"] or match["rule"] or "", match["message"],
                          match["severity"]))
        elif match := CODED_LINE.match(line):
            found.append((match["file"], int(match["line"]), match["code"],
                          match["message"].removeprefix("[*] "), "error"))
    return found or None


def _project_path(path: str, files: Mapping[str, str], root: str) -> str | None:
    relative = path.removeprefix(root.rstrip("/") + "/").removeprefix("./")
    return relative if relative in files else None


def enclosing_function(source: str, line: int) -> str:
    """The qualified name of the function whose lines hold `line`, or "<module>"."""
    found = function_at(source, line)
    if found is None:
        return "<module>"
    owner, node = found
    return f"{owner}.{node.name}" if owner else node.name


def function_at(source: str, line: int) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The top-level function, or method of a top-level class (with its class's name; "" for
    a function), whose lines, decorators included, hold `line`."""
    for owner, node in project_functions(source):
        if min([node.lineno, *(d.lineno for d in node.decorator_list)]) <= line <= (node.end_lineno or node.lineno):
            return owner, node
    return None


def added(before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics of `after` that `before` did not have, counted by file, code, message
    and function (a change moves lines; the same error twice is two)."""
    left = Counter(_key(d) for d in before)
    new = []
    for diagnostic in after:
        key = _key(diagnostic)
        if left[key]:
            left[key] -= 1
        else:
            new.append(diagnostic)
    return new


def _key(diagnostic: Diagnostic) -> tuple[str, str, str, str]:
    return diagnostic["file"], diagnostic["code"], diagnostic["message"], diagnostic["function"]


def as_failure(diagnostic: Diagnostic, files: Mapping[str, str], checker: str) -> CheckFailure:
    """A diagnostic as a failure: its checker, code and message, one frame at its line."""
    lines = files[diagnostic["file"]].splitlines()
    source = lines[diagnostic["line"] - 1].strip() if diagnostic["line"] <= len(lines) else ""
    frame = Frame(file=diagnostic["file"], line=diagnostic["line"], function=diagnostic["function"], source=source)
    return CheckFailure(test=checker, exception=diagnostic["code"] or "error", message=diagnostic["message"],
                        line=diagnostic["line"], frames=[frame], expected=None, actual=None)


def check_feedback(
    result: RunResult, files: Mapping[str, str], root: str, checker: str, before: Sequence[Diagnostic] | None,
) -> tuple[Feedback, list[Diagnostic] | None]:
    """The check of one run of the checker on `files` (the project as it is: `before` None;
    a change: the diagnostics of the project as it is), and the diagnostics read (None: none
    could be read though the checker failed; the feedback's error says so). Counts: the
    diagnostics of the project as it is and those the change added, those it fixed passed."""
    diagnostics = read_diagnostics(result.stdout + "\n" + result.stderr, files, root)
    baseline = list(before if before is not None else diagnostics or [])
    total = max(len(baseline), 1)
    if result.timed_out:
        return feedback_of(result, False, total, 0, [], f"{checker} did not finish within the time limit"), None
    if not diagnostics and result.exit_code != 0:
        cause = f"{checker} exited with code {result.exit_code} without a diagnostic codeheal can read"
        return feedback_of(result, False, total, 0, [], f"{cause}:\n{output_tail(result)}"), None
    diagnostics = diagnostics or []
    new = added(baseline, diagnostics)
    failures = [as_failure(d, files, checker) for d in (new or diagnostics)]
    error: str | None = None
    if new:
        error = (f"the change adds {len(new)} {checker} diagnostic(s) the project as it is did not have: "
                 + "; ".join(f"{d['file']}:{d['line']} [{d['code']}] {d['message']}" for d in new[:3]))
    fixed = len(baseline) - (len(diagnostics) - len(new)) if baseline else int(not diagnostics)
    return feedback_of(result, not diagnostics, total + len(new), max(fixed, 0), failures, error), diagnostics


def output_tail(result: RunResult) -> str:
    """The last lines of a run's output, as an error message shows them."""
    lines = [line for line in strip_ansi(result.stdout + "\n" + result.stderr).splitlines() if line.strip()]
    return "\n".join(lines[-TAIL_LINES:]) or "(no output)"


QUOTED = re.compile(r'"([^"]+)"')
"""A type a checker's message names in quotes (`"Cart"`, `"list[Item] | None"`)."""
NAME = re.compile(r"[A-Za-z_]\w*")
OUTLINE_LINES = 12
OUTLINED = 3


def types_used(diagnostics: Sequence[Diagnostic], files: Mapping[str, str]) -> str:
    """The project's classes that the diagnostics' messages name or their functions' annotations
    use, at most OUTLINED, each outlined (its class line, its fields, its methods' `def`
    lines) under its path: what the model needs to see of the types an error is about; "" when
    none is the project's."""
    names: dict[str, None] = {}
    for diagnostic in diagnostics:
        for quoted in QUOTED.findall(diagnostic["message"]):
            names.update(dict.fromkeys(NAME.findall(quoted)))
        found = function_at(files.get(diagnostic["file"], ""), diagnostic["line"])
        if found is not None:
            node = found[1]
            for annotation in [*(a.annotation for a in ast.walk(node.args) if isinstance(a, ast.arg)), node.returns]:
                for part in ast.walk(annotation) if annotation is not None else ():
                    if isinstance(part, ast.Name):
                        names[part.id] = None
    outlines: list[str] = []
    for path, text in files.items():
        if not path.endswith(".py") or is_test_file(path):
            continue
        try:
            module = ast.parse(text)
        except SyntaxError:
            continue
        lines = text.splitlines()
        for statement in module.body:
            if isinstance(statement, ast.ClassDef) and statement.name in names and len(outlines) < OUTLINED:
                outlines.append(f"# {path}\n" + "\n".join(_outline(statement, lines)))
    return "\n\n".join(outlines)


def _outline(node: ast.ClassDef, lines: list[str]) -> list[str]:
    shown = [lines[node.lineno - 1]]
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign | ast.Assign):
            shown.append(lines[statement.lineno - 1])
        elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            first = lines[statement.lineno - 1]
            header = lines[statement.lineno - 1: statement.body[0].lineno - 1] or [first]
            shown += [*header, first[: len(first) - len(first.lstrip())] + "    ..."]
    return shown[:OUTLINE_LINES]
