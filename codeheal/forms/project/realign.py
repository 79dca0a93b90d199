"""A model's rewrite of code laid back onto the original, so a diff shows only real changes.

Models send a function back reformatted: blank lines dropped or added, spacing changed, a
comment left out. None of that changes what the code does, and each such line would be a line
of noise in the diff. `realign` matches the rewrite's lines to the original's (difflib, on the
lines' tokens without whitespace or trailing comments) and keeps the original's bytes wherever
the two agree: a line that differs only in whitespace is the original's, the original's blank
lines stay and the rewrite's extra ones go, and a comment line the rewrite dropped is kept.
Lines the rewrite really changed or added are its own. The result must mean what the rewrite
means (the same AST); where it would not, the rewrite is returned as it is."""

from __future__ import annotations

import ast
import difflib
import io
import tokenize
from dataclasses import dataclass, field

from codeheal.syntax import parse_code


@dataclass
class _Line:
    """A non-blank line, the blank lines before it, and what it is compared by."""

    text: str
    key: str
    comment: bool
    """A line holding only a comment."""
    blanks: list[str] = field(default_factory=list)


def realign(original: str, rewrite: str) -> str:
    """`rewrite` with every line that only reformats the original's given back the original's
    bytes (see the module's docstring); `rewrite` itself when either does not parse or the
    realigned text would differ from it in meaning."""
    try:
        before, after = _lines(original), _lines(rewrite)
        meaning = ast.dump(parse_code(rewrite))
    except (SyntaxError, tokenize.TokenError, ValueError):
        return rewrite
    old, old_tail = before
    new, new_tail = after
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, [line.key for line in old], [line.key for line in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            for line in old[i1:i2]:
                out += [*line.blanks, line.text]
        elif tag == "delete":
            for line in old[i1:i2]:
                if line.comment:  # a comment the rewrite left out: not a change to the code
                    out += [*line.blanks, line.text]
        elif tag == "insert":
            out += _inserted(new[j1:j2], new[j2] if j2 < len(new) else None, old[i1] if i1 < len(old) else None)
        else:
            out += _replaced(old[i1:i2], new[j1:j2])
    out += old_tail if old or not new else new_tail
    merged = _joined(out)
    if merged == rewrite:
        return rewrite
    try:
        same = ast.dump(parse_code(merged)) == meaning
    except SyntaxError:
        same = False
    return merged if same else rewrite


def _inserted(lines: list[_Line], following: _Line | None, at: _Line | None) -> list[str]:
    """Lines the rewrite adds before the original line `at` (None: at the end). The original's
    blank lines before `at` stay, and the addition goes above them, unless the rewrite set it
    off with blank lines above and none below: then below them (taken off `at` here, as the
    next opcode emits `at`)."""
    body = _span(lines)
    if not lines[0].blanks:
        return body
    if at is None or (following is not None and following.blanks):
        return [*lines[0].blanks, *body]
    kept, at.blanks = at.blanks, []
    return [*kept, *body]


def _replaced(old: list[_Line], new: list[_Line]) -> list[str]:
    """The rewrite's lines in place of the original's, keeping the original's blank lines and
    (where the rewrite's lines hold no comment) its comment lines."""
    out = list(old[0].blanks)
    if any(line.comment for line in new):
        return out + _span(new)
    code = [line for line in old if not line.comment]
    pairs = dict(zip(map(id, code), new)) if len(code) == len(new) else {}
    placed = False
    for number, line in enumerate(old):
        blanks = line.blanks if number else []
        if line.comment:
            out += [*blanks, line.text]
        elif pairs:
            out += [*blanks, pairs[id(line)].text]
        elif not placed:
            out += [*blanks, *_span(new)]
            placed = True
    return out if pairs or placed else out + _span(new)


def _span(lines: list[_Line]) -> list[str]:
    """Consecutive lines of one text with the blank lines between them (not those before)."""
    out = [lines[0].text]
    for line in lines[1:]:
        out += [*line.blanks, line.text]
    return out


def _lines(text: str) -> tuple[list[_Line], list[str]]:
    """The non-blank lines of `text` with their keys, and the blank lines after the last one."""
    physical = io.StringIO(text).readlines()  # split where tokenize counts lines
    comments: dict[int, int] = {}
    inside: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            comments[token.start[0]] = token.start[1]
        elif token.start[0] < token.end[0] and token.type not in (tokenize.NEWLINE, tokenize.NL):
            inside.update(range(token.start[0] + 1, token.end[0] + 1))  # inside a multi-line string
    lines: list[_Line] = []
    blanks: list[str] = []
    for number, raw in enumerate(physical, 1):
        if number in inside:
            lines.append(_Line(raw, raw, comment=False, blanks=blanks))
        elif not raw.strip():
            blanks.append(raw)
            continue
        else:
            indent = raw[: len(raw) - len(raw.lstrip())]
            code = raw[: comments.get(number, len(raw))]
            comment = not code.strip()
            key = indent + ("".join(raw.split()) if comment else "".join(code.split()))
            lines.append(_Line(raw, ("#" if comment else "") + key, comment=comment, blanks=blanks))
        blanks = []
    return lines, blanks


def _joined(lines: list[str]) -> str:
    """The lines as one text, each but a last one without a line break given one."""
    fixed = [line if line.endswith("\n") else line + "\n" for line in lines[:-1]]
    return "".join(fixed + lines[-1:])
