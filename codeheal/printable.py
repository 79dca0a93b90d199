"""Text as a terminal shows it: control characters other than newline and tab (and the
carriage return of a CRLF line end), and Unicode's bidirectional controls, can move the cursor,
erase lines or reorder what is shown, so a change that hides a line of its own diff looks
harmless. A change may not add them (forms/project/source_text.py), and everything printed of
code, diffs and test output goes through `escaped`, which shows each as a visible escape."""

from __future__ import annotations

import re
import sys
from collections import Counter

from rich.markup import escape

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_HIDDEN = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{BIDI_CONTROLS}]|\r(?!\n)")


def control_characters(text: str) -> Counter[str]:
    """The control characters in `text` a terminal would act on, each with its count."""
    return Counter(match.group() for match in _HIDDEN.finditer(text))


def escaped(text: str) -> str:
    """`text` with each such control character shown as an escape (`\\x1b`, `\\u202e`)."""
    return _HIDDEN.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def markup_escaped(text: str) -> str:
    """`text` escaped for rich's markup and for the terminal (progress lines)."""
    return escape(escaped(text))


def for_stdout(text: str) -> str:
    """`text` as printed on stdout: escaped on a terminal, as it is in a pipe or a file (a diff
    for `git apply`, code saved by `> solution.py`: a change holds no such characters it added)."""
    return escaped(text) if sys.stdout.isatty() else text
