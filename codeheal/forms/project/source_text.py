"""A project's files read as Python reads them. Python decodes a module by its coding
declaration (PEP 263: a `coding[:=]` comment on the first line, or on the second after a comment
or blank line); codeheal's edits, tamper scan, linter and diff read UTF-8. A file Python would
read differently from its UTF-8 text (`# coding: utf-7` hiding code in what UTF-8 shows as a
comment) is not text to codeheal: the snapshot keeps it as bytes, which the sandbox writes as
they are and Python decodes as it would, and no change can touch it. A change may not add or
alter a coding declaration, nor add control characters a terminal acts on (printable.py)."""

from __future__ import annotations

import io
import re
import tokenize

from codeheal.errors import EditRejected
from codeheal.printable import control_characters, escaped

DECLARATION = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
"""PEP 263's coding declaration (the expression the tokenizer uses)."""
BLANK = re.compile(r"^[ \t\f]*(?:[#\r\n]|$)")


def declared_coding(text: str) -> str | None:
    """The coding `text` declares, as written (None: none, so UTF-8)."""
    lines = text.splitlines(keepends=True)[:2]
    for number, line in enumerate(lines):
        if match := DECLARATION.match(line):
            return match.group(1)
        if number == 0 and not BLANK.match(line):
            return None
    return None


def read_alike(path: str, data: bytes, text: str) -> bool:
    """Whether Python, importing `data` (the file `path`) by its declaration, reads `text`, its
    UTF-8 decoding; files other than Python modules always do."""
    if not path.endswith((".py", ".pyw", ".pyi")):
        return True
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return encoding in ("utf-8", "utf-8-sig") or data.decode(encoding) == text
    except (SyntaxError, LookupError, UnicodeDecodeError):
        return False


def refuse_unreadable(path: str, before: str, after: str) -> None:
    """EditRejected when the change of `path` from `before` to `after` adds or alters a coding
    declaration, or adds a control character other than newline and tab."""
    old, new = declared_coding(before), declared_coding(after)
    if new != old:
        what = f"adds a coding declaration ({new})" if old is None else f"changes its coding declaration ({old})"
        raise EditRejected(f"{path}: the change {what}: codeheal reads the project as UTF-8, as Python does without "
                           "one; keep the file's first two lines as they are")
    added = control_characters(after) - control_characters(before)
    if added:
        shown = ", ".join(sorted(escaped(character) for character in added))
        raise EditRejected(f"{path}: the change adds control characters ({shown}), which hide or reorder what a "
                           "terminal shows of the diff: write them as escapes in strings (\"\\x1b\") instead")
