"""A project's files read and written as Python reads them. Python decodes a module by its
coding declaration (PEP 263: a `coding[:=]` comment on the first line, or on the second after a
comment or blank line); so does codeheal: a module declared `# coding: gbk` is held as the text
Python reads (`python_text`), which the edits, tamper scan, linter, prompts and diff all see, and
written back, into the sandbox's copy and into the project, in its own encoding (`file_bytes`).
A module whose bytes do not come back from that text (`# coding: utf-7` can spell one text many
ways), or that its declaration cannot decode, is not text to codeheal: the snapshot keeps it as
bytes, which the sandbox writes as they are and Python decodes as it would, and no change can
touch it. A change may not add or alter a coding declaration, write a character the declared
encoding cannot hold, nor add control characters a terminal acts on (printable.py)."""

from __future__ import annotations

import codecs
import io
import re
import tokenize

from codeheal.errors import EditRejected
from codeheal.printable import control_characters, escaped

DECLARATION = re.compile(r"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")
"""PEP 263's coding declaration (the expression the tokenizer uses)."""
BLANK = re.compile(r"^[ \t\f]*(?:[#\r\n]|$)")
PYTHON_SUFFIXES = (".py", ".pyw", ".pyi")


def declared_coding(text: str) -> str | None:
    """The coding `text` declares, as written (None: none, so UTF-8)."""
    lines = text.splitlines(keepends=True)[:2]
    for number, line in enumerate(lines):
        if match := DECLARATION.match(line):
            return match.group(1)
        if number == 0 and not BLANK.match(line):
            return None
    return None


def python_text(path: str, data: bytes) -> str | None:
    """`data`, the file `path`, as the text Python reads: a Python module decoded by its coding
    declaration (tokenize.detect_encoding; a UTF-8 one keeps its byte-order mark), any other
    file as UTF-8; None when it cannot be decoded so, or (a module) its bytes do not come back
    from that text, so a change could not be written back as Python would read it."""
    encoding = "utf-8"
    if path.endswith(PYTHON_SUFFIXES):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:  # an unknown or impossible declaration: Python cannot import it either
            return None
    encoding = "utf-8" if encoding == "utf-8-sig" else encoding  # the mark stays in the text
    try:
        text = data.decode(encoding)
    except (LookupError, UnicodeDecodeError):
        return None
    return text if encoding == "utf-8" or text.encode(encoding) == data else None


def file_bytes(path: str, text: str) -> str | bytes:
    """`text` as the file `path` holds it: a Python module with a coding declaration other
    than UTF-8 as the bytes of that encoding, so Python reads `text` back; any other file as
    the text itself (written as UTF-8)."""
    declared = declared_coding(text) if path.endswith(PYTHON_SUFFIXES) else None
    if declared is None or codecs.lookup(declared).name == "utf-8":
        return text
    return text.encode(declared)


def refuse_unreadable(path: str, before: str, after: str) -> None:
    """EditRejected when the change of `path` from `before` to `after` adds or alters a coding
    declaration, writes a character its declared encoding cannot hold, or adds a control
    character other than newline and tab."""
    old, new = declared_coding(before), declared_coding(after)
    if new != old:
        what = f"adds a coding declaration ({new})" if old is None else f"changes its coding declaration ({old})"
        raise EditRejected(f"{path}: the change {what}: codeheal reads and writes each module in the encoding it "
                           "declares, as Python does; keep the file's first two lines as they are")
    try:
        file_bytes(path, after)
    except UnicodeEncodeError as exc:
        raise EditRejected(f"{path}: the change writes {escaped(exc.object[exc.start:exc.end])!r}, which the file's "
                           f"encoding ({old}) cannot hold: write it as an escape in a string instead") from None
    added = control_characters(after) - control_characters(before)
    if added:
        shown = ", ".join(sorted(escaped(character) for character in added))
        raise EditRejected(f"{path}: the change adds control characters ({shown}), which hide or reorder what a "
                           "terminal shows of the diff: write them as escapes in strings (\"\\x1b\") instead")
