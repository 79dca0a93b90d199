"""A heal's change as a WorkspaceEdit: for each file it rewrites, the smallest line ranges
that differ, replaced, so the editor applies (and can undo) exactly the change."""

from __future__ import annotations

from difflib import SequenceMatcher

from lsprotocol import types


def text_edits(old: str, new: str) -> list[types.TextEdit]:
    """The edits that turn `old` into `new`, one per run of changed lines."""
    before, after = old.splitlines(keepends=True), new.splitlines(keepends=True)
    edits = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag != "equal":
            edits.append(types.TextEdit(
                range=types.Range(_position(before, i1), _position(before, i2)),
                new_text="".join(after[j1:j2]),
            ))
    return edits


def workspace_edit(changes: dict[str, tuple[str, str]]) -> types.WorkspaceEdit:
    """One WorkspaceEdit for files by URI -> (their text now, their text healed)."""
    return types.WorkspaceEdit(changes={uri: text_edits(old, new) for uri, (old, new) in changes.items() if old != new})


def _position(lines: list[str], index: int) -> types.Position:
    """The start of line `index`; past the last line, the end of a last line with no newline."""
    if index < len(lines) or not lines or lines[-1].endswith(("\n", "\r")):
        return types.Position(index, 0)
    return types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)  # LSP counts UTF-16 units
