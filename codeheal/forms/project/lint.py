"""The linter stage of `codeheal fix`: ruff's findings that a change adds, before the tests run.

Each changed file is checked as it was and as the change leaves it, with the project's ruff
configuration when it has one (ruff finds it from the file's path under the project root),
else ruff's defaults (pyflakes and syntax: undefined names, unused imports and variables). A
finding counts when the change adds it: the project's own findings are not the model's to fix.
Ruff's conventions for what an import is for hold: an import in a package's `__init__.py` is a
re-export (as is a name in `__all__`, which ruff itself counts as used), never an unused
import; and an unused import is counted by its rule alone, not its name, so a change that
corrects an import in place (`averge` -> `average`) adds nothing. Only findings that say the
code is wrong count (REFUSING: pyflakes' rules and syntax errors), whatever else the project's
configuration selects: a style rule (a line too long, a docstring's form) is the project's
taste, never a reason to refuse a right change.
Ruff only reads source, so it runs on the host; without ruff the stage is skipped. A ruff that
cannot run on a file (a project configuration it cannot read, a crash) does not silently turn
the stage off: the check says why it did not run, and the attempt's feedback carries it as a
note."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codeheal.evaluation.feedback import attempt_feedback
from codeheal.state import CheckFailure, Feedback

RUFF_TIMEOUT_S = 30
UNUSED_IMPORT = "F401"
REFUSING = ("F", "E9", "syntax", "invalid-syntax")
"""The rules whose findings refuse a change (by code prefix): pyflakes (undefined names, unused
imports and variables, redefinitions) and syntax errors."""


@dataclass(frozen=True)
class LintFinding:
    """One problem ruff reports in a changed file."""

    file: str
    line: int
    code: str
    message: str


def ruff_binary() -> str | None:
    """The ruff executable: the `ruff` package's, else one on PATH; None when there is none."""
    try:
        from ruff.__main__ import find_ruff_bin

        return str(find_ruff_bin())
    except (ImportError, FileNotFoundError):
        return shutil.which("ruff")


@dataclass(frozen=True)
class LintCheck:
    """What the linter stage found in a change, or why it could not look."""

    findings: list[LintFinding]
    """The findings the change adds."""
    unavailable: str | None = None
    """Why ruff could not check the change (its own error): the stage did not run."""


class _RuffFailed(Exception):
    """ruff ran and could not check a file; the message says why."""


def added_findings(
    original: Mapping[str, str], changed: Mapping[str, str], project_root: str | Path
) -> LintCheck:
    """The findings each changed Python file has and did not have before the change."""
    ruff = ruff_binary()
    if ruff is None:
        return LintCheck([])
    added = []
    try:
        for path in sorted(p for p in changed if p.endswith(".py")):
            before = Counter(map(_key, _check(ruff, path, original.get(path, ""), project_root)))
            for finding in _check(ruff, path, changed[path], project_root):
                key = _key(finding)
                if not finding.code.startswith(REFUSING):
                    continue  # style: the project's taste, not a defect
                if finding.code == UNUSED_IMPORT and Path(path).name == "__init__.py":
                    continue  # a re-export
                if before[key]:
                    before[key] -= 1
                else:
                    added.append(finding)
    except _RuffFailed as exc:
        return LintCheck([], f"the linter stage did not run: {exc}")
    return LintCheck(added)


def _key(finding: LintFinding) -> tuple[str, str]:
    """What makes two findings the same before and after a change: the rule and its message,
    an unused import by its rule alone."""
    return (finding.code, "" if finding.code == UNUSED_IMPORT else finding.message)


def lint_feedback(findings: list[LintFinding]) -> Feedback:
    """The linter stage's refusal of a change that adds `findings`, as the attempt's feedback."""
    return attempt_feedback(error=describe(findings), failures=[
        CheckFailure(
            test="<lint>", exception=f.code, message=f"{f.file} line {f.line}: {f.message}", line=f.line,
            frames=[], expected=None, actual=None,
        )
        for f in findings
    ])


def describe(findings: list[LintFinding]) -> str:
    """The feedback line of a change the linter stage refused."""
    listed = "; ".join(f"{f.file}:{f.line}: {f.code} {f.message}" for f in findings[:5])
    more = f" (and {len(findings) - 5} more)" if len(findings) > 5 else ""
    return f"ruff: the change adds {len(findings)} problem(s): {listed}{more}"


def _check(ruff: str, path: str, text: str, project_root: str | Path) -> list[LintFinding]:
    try:
        run = subprocess.run(
            [ruff, "check", "--no-cache", "--no-fix", "--output-format", "json", "--stdin-filename", path, "-"],
            input=text, cwd=project_root, capture_output=True, text=True, timeout=RUFF_TIMEOUT_S,
        )
        reported = json.loads(run.stdout or "[]")
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        raise _RuffFailed(f"ruff could not run on {path} ({exc})") from exc
    if run.returncode not in (0, 1):  # 2: ruff's own error, such as a configuration it cannot read
        last = (run.stderr.strip().splitlines() or ["no message"])[-1]
        raise _RuffFailed(f"ruff failed on {path} with exit code {run.returncode}: {last[:300]}")
    return [
        LintFinding(path, (item.get("location") or {}).get("row", 0), item.get("code") or "syntax", item.get("message", ""))
        for item in reported if isinstance(item, dict)
    ]
