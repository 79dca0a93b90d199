"""A change to a workspace as a unified diff, and writing it back into the project.

Writing is guarded twice: a file must still hold what the snapshot read (else the user edited
it during the run), and in a git repository the files to write must have no uncommitted
changes, so `git checkout -- FILE` or `git diff` always undoes or shows exactly codeheal's
edit. Only the touched files are checked: work in progress elsewhere in the tree is the user's
business and no reason to refuse. `force` skips the git check, never the stale check.

Writing is all or nothing: every file is staged beside its target first, then all are renamed
into place with interrupts held back, so Ctrl-C never leaves the project half-written. A file
that already holds the change (an earlier write cut short by a kill) counts as written, so a
resumed run finishes the write and says so; staged files a kill left behind are removed by
the next write."""

from __future__ import annotations

import difflib
import glob
import os
import re
import signal
import tempfile
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from codeheal.errors import InputError
from codeheal.forms.project.git import uncommitted
from codeheal.forms.project.source_text import file_bytes, python_text
from codeheal.interrupts import WRITING

STAGED_SUFFIX = ".codeheal"
HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}
SHOWN_DIRTY = 5
"""The most uncommitted files an --apply refused at the start names."""
HUNK_HEADER = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")


class DirtyTreeError(InputError):
    """A file codeheal would write has uncommitted changes, or changed since it was read."""


@dataclass(frozen=True)
class Diff:
    """A unified diff of a change, with `a/` and `b/` paths as git writes them."""

    text: str
    files: list[str]
    changed_lines: int
    """Lines removed plus lines added."""


def unified_diff(original: Mapping[str, str], changed: Mapping[str, str], *, context: int = 3) -> Diff:
    """The diff from `original` to `changed` (path -> text; a path missing from `changed` is
    unchanged), in path order."""
    parts, files, count = [], [], 0
    for path in sorted(changed):
        before, after = original.get(path, ""), changed[path]
        if before == after:
            continue
        lines = list(difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True),
            fromfile=f"a/{path}" if path in original else "/dev/null", tofile=f"b/{path}", n=context,
        ))
        files.append(path)
        count += sum(1 for line in lines[2:] if line[:1] in "+-")
        parts += [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines]
    return Diff("".join(parts), files, count)


def rooted(diff: str, prefix: str) -> str:
    """`diff` with its a/ and b/ paths under `prefix` (the project's folder in its git work
    tree, "sub/dir/"), so `git apply` from the repository and CI annotations find the files.
    Only header lines are rewritten: a hunk's removed line that reads "-- a/x" stays as it is."""
    if not prefix:
        return diff
    lines, old_left, new_left = [], 0, 0
    for line in diff.splitlines(keepends=True):
        if old_left <= 0 and new_left <= 0 and line.startswith(("--- a/", "+++ b/")):
            line = line[:6] + prefix + line[6:]
        elif match := HUNK_HEADER.match(line):
            old_left, new_left = int(match[1] or 1), int(match[2] or 1)
        elif line[:1] in (" ", "-"):
            old_left -= 1
            new_left -= line[:1] == " "
        elif line[:1] == "+":
            new_left -= 1
        lines.append(line)
    return "".join(lines)


def refuse_uncommitted(project_dir: str | Path, paths: Collection[str]) -> None:
    """InputError, as an --apply run starts, naming those of `paths` (the Python files a repair
    may change) with uncommitted changes: the write at the run's end would refuse them, after
    the whole repair was paid for. Nothing has run yet; --force skips this, as it does there."""
    dirty = uncommitted(Path(project_dir).resolve(), sorted(paths))
    if dirty:
        shown = ", ".join(dirty[:SHOWN_DIRTY]) + (f" and {len(dirty) - SHOWN_DIRTY} more" if len(dirty) > SHOWN_DIRTY else "")
        raise InputError(
            f"--apply: {shown} {'has' if len(dirty) == 1 else 'have'} uncommitted changes, and the fix may "
            "change them; nothing was run: commit or stash them first (so the fix can be reviewed and undone "
            "on its own), or pass --force"
        )


def write_changes(
    project_dir: str | Path, changed: Mapping[str, str], *, originals: Mapping[str, str], force: bool = False
) -> list[Path]:
    """Write `changed` (path -> new text) into the project, all or nothing (their permissions
    kept; a module in the encoding it declares, as Python reads it: source_text.py), and return every file that now holds the change. `originals` is what the snapshot
    read. Raises DirtyTreeError before writing anything when a file holds neither what was
    read nor the change, or, unless `force`, has uncommitted changes in git; InputError for a
    path that is a link or leaves the project."""
    root = Path(project_dir).resolve()
    targets = {path: _target(root, path) for path in changed}
    current = {path: _read(root, path) for path in targets}
    stale = [p for p in targets if current[p] not in (originals.get(p), changed[p])]
    if stale:
        raise DirtyTreeError(
            f"{', '.join(sorted(stale))} changed since codeheal read the project; nothing was "
            "written: run codeheal fix again on the current files"
        )
    to_write = {p: text for p, text in changed.items() if current[p] != text}
    if not force and to_write:
        dirty = uncommitted(root, sorted(to_write))
        if dirty:
            raise DirtyTreeError(
                f"{', '.join(dirty)} has uncommitted changes; nothing was written: commit or "
                "stash them (so the fix can be reviewed and undone on its own), or pass --force"
            )
    for target in targets.values():
        _remove_staged(target)
    staged: dict[Path, Path] = {}
    try:
        for path, text in to_write.items():
            staged[targets[path]] = _stage(targets[path], file_bytes(path, text))
        with _interrupts_held():
            for target, temporary in staged.items():
                os.replace(temporary, target)
    finally:
        for target in targets.values():  # also a file staged when an interrupt came
            _remove_staged(target)
    return [targets[p] for p in sorted(changed)]


def _target(root: Path, path: str) -> Path:
    target = root / path
    if target.is_symlink() or not target.resolve().is_relative_to(root):
        raise InputError(f"{path}: a link or a path outside the project; codeheal writes only plain files in it")
    return target


def _read(root: Path, path: str) -> str | None:
    """The file `path` of the project at `root` as the text Python reads (None: not there)."""
    try:
        return python_text(path, (root / path).read_bytes())
    except OSError:
        return None


@contextmanager
def _interrupts_held() -> Iterator[None]:
    """Ctrl-C (and SIGTERM, SIGHUP) arriving inside is acted on only once it is over. Python
    runs signal handlers in the main thread only: from any other thread (a graph node's) the
    renames go on whatever the main thread does."""
    if threading.current_thread() is not threading.main_thread():
        with WRITING:
            yield
        return
    arrived: list[int] = []
    previous = {sig: signal.signal(sig, lambda number, frame: arrived.append(number)) for sig in HELD_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        for sig in arrived[:1]:
            signal.raise_signal(sig)


def _stage(target: Path, content: str | bytes) -> Path:
    """`content` (text: as UTF-8) in a new file beside `target` (same permissions), flushed to disk."""
    mode = target.stat().st_mode & 0o7777
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=STAGED_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content.encode("utf-8") if isinstance(content, str) else content)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return Path(temporary)


def _remove_staged(target: Path) -> None:
    """Staged copies of `target` that a killed write left behind."""
    for leftover in target.parent.glob(f".{glob.escape(target.name)}.*{STAGED_SUFFIX}"):
        if leftover.is_file() and not leftover.is_symlink():
            leftover.unlink(missing_ok=True)
