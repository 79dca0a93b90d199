"""How the project benchmarks score a change, by their own measure (not the product's): its
unified diff, the lines it changes, and its hunks that change only whitespace."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass

HUNK_HEADER = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


@dataclass(frozen=True)
class Change:
    """A change to a project as a unified diff (git's `a/` and `b/` paths), with its files and
    its changed lines (removed plus added)."""

    diff: str
    files: list[str]
    changed_lines: int


def change(original: Mapping[str, str], changed: Mapping[str, str]) -> Change:
    """The change from `original` to `changed` (path -> text; a path missing from `changed` is
    unchanged), in path order, with three lines of context."""
    parts, files, count = [], [], 0
    for path in sorted(changed):
        before, after = original.get(path, ""), changed[path]
        if before == after:
            continue
        lines = list(difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True),
            fromfile=f"a/{path}" if path in original else "/dev/null", tofile=f"b/{path}",
        ))
        files.append(path)
        count += sum(1 for line in lines[2:] if line[:1] in "+-")
        parts += [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    return Change("".join(parts), files, count)


def whitespace_only_hunks(diff: str) -> int:
    """How many hunks of a unified diff change nothing but whitespace: the hunk's old text
    and its new text (context lines included, so a line moved is a change) are the same once
    all whitespace and blank lines are left out."""
    count, lines = 0, iter(diff.splitlines())
    for line in lines:
        header = HUNK_HEADER.match(line)
        if not header:
            continue
        old, new = int(header.group(1) or 1), int(header.group(2) or 1)
        before, after = [], []
        while old or new:
            body = next(lines, None)
            if body is None:
                break
            if body.startswith("\\"):
                continue  # "\ No newline at end of file"
            kind, text = body[:1], "".join(body[1:].split())
            if kind in " -":
                old -= 1
            if kind in " +":
                new -= 1
            if text and kind in " -":
                before.append(text)
            if text and kind in " +":
                after.append(text)
        count += before == after
    return count


def healed_by(result: Mapping) -> str:
    """What wrote the passing change of a run's result: the mutation screen (an attempt after
    the first that spent no token), or the model; "" for a run that did not pass."""
    if result["status"] != "passed":
        return ""
    last = result["history"][-1]
    return "mutation" if last["attempt"] > 1 and last["tokens"] == 0 else "model"
