"""A fix as GitHub Actions workflow commands: one `::error` annotation per hunk, on the lines of
the project as it is that the fix changes, so the pull request shows where the tests fail and
what makes them pass (`codeheal fix --format github`)."""

from __future__ import annotations

import re

HUNK = re.compile(r"^@@ -(?P<start>\d+)(?:,(?P<count>\d+))? \+\d+(?:,(?P<added>\d+))? @@")
TITLE = "codeheal fix"


def annotations(diff: str) -> list[str]:
    """`::error file=F,line=L,endLine=E,title=...::message` for each hunk of a unified diff
    (a/ and b/ paths), the lines it removes in the original (the line it inserts before, for
    a hunk that only adds); the message holds the hunk. A hunk's lines are read by its
    header's counts, so an added line that starts with `++ ` is not a file header."""
    commands: list[str] = []
    path = None
    hunk: list[str] = []
    first = last = 0

    def flush() -> None:
        if path is not None and hunk:
            message = "the tests pass with this change:\n" + "\n".join(hunk)
            commands.append(
                f"::error file={_property(path)},line={first},endLine={max(last, first)},"
                f"title={_property(TITLE)}::{_data(message)}"
            )

    line_no = old_left = new_left = 0
    for line in diff.splitlines():
        if old_left or new_left:  # inside a hunk, by its header's counts: `+++ x` there is an added `++ x`
            if line.startswith("\\"):  # "\ No newline at end of file"
                continue
            old_left -= not line.startswith("+")
            new_left -= not line.startswith("-")
            if line.startswith(("-", "+")) and path is not None:
                if not first:
                    first = line_no
                if line.startswith("-"):
                    last = line_no
                    line_no += 1
                hunk.append(line)
            else:
                line_no += 1
        elif line.startswith("+++ "):
            flush()
            hunk = []
            path = line[4:].removeprefix("b/")
        elif line.startswith("--- "):
            continue
        elif match := HUNK.match(line):
            flush()
            hunk, first, last = [], 0, 0
            line_no = int(match["start"])
            old_left, new_left = int(match["count"] or 1), int(match["added"] or 1)
    flush()
    return commands


def not_healed(history: list) -> str:
    """The annotation of a run that did not heal: its last attempt's outcome."""
    last = history[-1]["summary"] if history else "no attempt ran"
    return f"::error title={_property(TITLE)}::{_data('not healed; last attempt: ' + last)}"


def _data(text: str) -> str:
    """A workflow command's message, escaped as the runner expects."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
