"""An existing project read into memory as a workspace, and the Python it runs on.

The snapshot is what the sandbox gets (`Job.files`: relative path -> text, and the binary
files as bytes, which only the sandbox sees: never a prompt, a diff or an edit); the project
itself is only read. Inside a git work tree it holds only what git would list (tracked, or
untracked and not ignored); secrets (dotenv files, private keys, credential files) are left
out wherever they are. What is left out, and why, is said in `Snapshot.skipped`."""

from __future__ import annotations

import fnmatch
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from codeheal.errors import InputError
from codeheal.forms.project.git import run_git
from codeheal.forms.project.source_text import python_text
from codeheal.sandboxes.runtime import not_an_interpreter

MAX_FILES = 2000
MAX_BYTES = 8 * 1024 * 1024
"""Caps on what a snapshot holds: a project's source and tests, not its data or builds."""
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", "__pycache__", ".pytest_cache", ".mypy_cache",
    ".ruff_cache", ".tox", ".nox", "node_modules", "build", "dist",
})
BINARY_PROBE_BYTES = 8192
BIGGEST_SHOWN = 5
SECRET_NAMES = (
    ".env", ".env.*", "*.env", ".envrc", ".netrc", ".pypirc", ".pgpass", "id_rsa", "id_dsa", "id_ecdsa",
    "id_ed25519", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "credentials.json",
)
"""File names that hold secrets by convention: never read, wherever they are."""
PRIVATE_KEY_MARK = "PRIVATE KEY-----"
SECRET_REASON = "may hold secrets (dotenv, key or credential file): not read"
IGNORED_REASON = "ignored by git"


@dataclass(frozen=True)
class Skipped:
    """A file the snapshot left out."""

    path: str
    reason: str


@dataclass(frozen=True)
class Snapshot:
    """A project as a workspace: its text files by relative path ("/"-separated), as Python
    reads them (a module in the encoding it declares: source_text.py)."""

    root: Path
    files: dict[str, str]
    skipped: list[Skipped]
    total_bytes: int
    data: dict[str, bytes] = field(default_factory=dict)
    """Its binary files (fixtures, images, archives, databases) by relative path: for the
    tests to read in the sandbox, never shown to the model."""
    folders: frozenset[str] = frozenset()
    """Its empty folders (relative paths), made in the sandbox's copy too (outside a git work
    tree: git keeps none)."""


@dataclass(frozen=True)
class PythonEnv:
    """The interpreter the project's tests run on, and where that choice came from."""

    interpreter: Path
    """Not resolved: a virtualenv's bin/python finds its site-packages through its own path."""
    source: str
    """"--python", "project .venv", "project venv" or "$VIRTUAL_ENV"."""


def read_project(root: str | Path, *, max_files: int = MAX_FILES, max_bytes: int = MAX_BYTES) -> Snapshot:
    """Read the files of the project at `root` (text, and binary files as bytes), leaving out
    version control, virtualenvs, caches, build output, what git ignores, secrets and links
    that leave the project.

    Raises InputError when `root` is not a folder, or when the project holds more than
    `max_files` files or `max_bytes` bytes (naming the biggest entries, to exclude or split)."""
    base = Path(root)
    if not base.is_dir():
        raise InputError(f"{root}: not a folder; give the project's directory")
    base = base.resolve()
    candidates, skipped, folders = _list_files(base)
    _check_caps(candidates, max_files, max_bytes)
    files: dict[str, str] = {}
    data: dict[str, bytes] = {}
    for relative in sorted(candidates):
        content = (base / relative).read_bytes()
        if PRIVATE_KEY_MARK.encode() in content:
            skipped.append(Skipped(relative, "holds a private key: not read"))
        elif (text := _text(relative, content)) is None:
            data[relative] = content  # binary, or not text as Python reads it: never edited
        else:
            files[relative] = text
    return Snapshot(
        root=base, files=files, skipped=sorted(skipped, key=lambda s: s.path),
        total_bytes=sum(candidates[path] for path in (*files, *data)), data=data, folders=folders,
    )


def find_python(
    project_dir: str | Path, *, python: str | None = None, environ: Mapping[str, str] = os.environ
) -> PythonEnv | None:
    """The Python the project uses: `python` (the --python flag) if given, else the project's
    own `.venv` or `venv`, else the active `$VIRTUAL_ENV`; None when there is none (run on
    codeheal's own interpreter). The project's folder wins over an active virtualenv, as in uv:
    the active one is as likely codeheal's own. Nothing is run here: an interpreter that is not
    a native executable (a script in `.venv/bin/python`) is refused with InputError."""
    if python:
        return _checked(Path(python).absolute(), "--python")
    base = Path(project_dir).absolute()
    for folder in (".venv", "venv"):
        interpreter = _venv_python(base / folder)
        if interpreter:
            return _checked(interpreter, f"project {folder}")
    active = environ.get("VIRTUAL_ENV")
    interpreter = _venv_python(Path(active)) if active else None
    return _checked(interpreter, "$VIRTUAL_ENV") if interpreter else None


def _checked(interpreter: Path, source: str) -> PythonEnv:
    if reason := not_an_interpreter(str(interpreter)):
        raise InputError(f"{source} {reason}; give the path of a real Python interpreter with --python")
    return PythonEnv(interpreter, source)


def _venv_python(folder: Path) -> Path | None:
    for name in ("bin/python", "Scripts/python.exe"):
        if (folder / name).is_file():
            return folder / name
    return None


def git_listed(base: Path) -> frozenset[str] | None:
    """The files git would list under `base` (tracked, or untracked and not ignored), relative
    to it; None outside a git work tree. git runs with the project's commands off (git.py), so
    its git configuration runs nothing."""
    try:
        listed = run_git(base, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except (OSError, subprocess.SubprocessError):
        return None
    return frozenset(name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name)


def git_prefix(base: Path) -> str:
    """`base`'s folder relative to the top of its git work tree, with a trailing slash ("" at
    the top, outside a work tree or without git): what puts a project's paths in repository terms."""
    try:
        return run_git(base, "rev-parse", "--show-prefix").decode("utf-8", "surrogateescape").strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def _list_files(base: Path) -> tuple[dict[str, int], list[Skipped], frozenset[str]]:
    """Relative path -> size of every file to read, what was left out on the way, and the
    empty folders."""
    found: dict[str, int] = {}
    skipped: list[Skipped] = []
    empty: set[str] = set()
    listed = git_listed(base)
    listed_dirs = {parent.as_posix() for name in listed or () for parent in Path(name).parents}
    for folder, dirs, names in os.walk(base):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not _skipped_dir(here / d, skipped, base))
        if listed is not None:
            for name in [d for d in dirs if (here / d).relative_to(base).as_posix() not in listed_dirs]:
                dirs.remove(name)
                skipped.append(Skipped((here / name).relative_to(base).as_posix() + "/", IGNORED_REASON))
        if not dirs and not names and here != base:
            empty.add(here.relative_to(base).as_posix())
        for name in names:
            path = here / name
            relative = path.relative_to(base).as_posix()
            if listed is not None and relative not in listed:
                skipped.append(Skipped(relative, IGNORED_REASON))
                continue
            if any(fnmatch.fnmatch(name, pattern) for pattern in SECRET_NAMES):
                skipped.append(Skipped(relative, SECRET_REASON))
                continue
            if path.is_symlink():
                # A link is judged by what it leads to: every rule applies to its target too.
                target = path.resolve()
                if not target.is_relative_to(base.resolve()) or not target.is_file():
                    skipped.append(Skipped(relative, "a link that leaves the project or points nowhere"))
                    continue
                if reason := _target_rule(target, base.resolve(), listed):
                    skipped.append(Skipped(relative, reason))
                    continue
            elif not path.is_file():
                continue  # sockets, fifos
            found[relative] = path.stat().st_size
    return found, skipped, frozenset(empty)


def _target_rule(target: Path, base: Path, listed: frozenset[str] | None) -> str | None:
    """Why a link's target is left out (a secret's name, git-ignored, or in a folder the
    snapshot skips); None when it would be read in its own right."""
    relative = target.relative_to(base).as_posix()
    if any(fnmatch.fnmatch(target.name, pattern) for pattern in SECRET_NAMES):
        return f"a link to {relative}: {SECRET_REASON}"
    if listed is not None and relative not in listed:
        return f"a link to {relative}: {IGNORED_REASON}"
    if any(part in SKIPPED_DIRS or part.endswith(".egg-info") for part in Path(relative).parts[:-1]):
        return f"a link to {relative}, in a folder codeheal does not read"
    return None


def _skipped_dir(path: Path, skipped: list[Skipped], base: Path) -> bool:
    name = path.name
    if path.is_symlink():
        skipped.append(Skipped(path.relative_to(base).as_posix() + "/", "link to a folder (not followed)"))
        return True
    return name in SKIPPED_DIRS or name.endswith(".egg-info") or (path / "pyvenv.cfg").exists()


def _text(path: str, data: bytes) -> str | None:
    """`data` as the text Python reads (source_text.python_text), or None for a binary file (a
    NUL byte early, or not text as Python reads it)."""
    if b"\0" in data[:BINARY_PROBE_BYTES]:
        return None
    return python_text(path, data)  # bytes, not text mode: line endings stay as they are


def _check_caps(found: dict[str, int], max_files: int, max_bytes: int) -> None:
    total = sum(found.values())
    if len(found) > max_files:
        counts = _by_entry(found, lambda size: 1)
        raise InputError(
            f"the project has {len(found)} files, over the cap of {max_files}; the most are in "
            f"{_biggest(counts, 'files')}. Run on a smaller folder, or move data out of it"
        )
    if total > max_bytes:
        sizes = _by_entry(found, lambda size: size)
        raise InputError(
            f"the project holds {total:,} bytes of files, over the cap of {max_bytes:,}; the "
            f"biggest are {_biggest(sizes, 'bytes')}, the largest files {_biggest(found, 'bytes')}. "
            "Run on a smaller folder, or move data out of it (or make git ignore it)"
        )


def _by_entry(found: dict[str, int], measure: Callable[[int], int]) -> dict[str, int]:
    """Totals per top-level entry of the project (a folder counts all it holds)."""
    totals: dict[str, int] = {}
    for relative, size in found.items():
        head, _, rest = relative.partition("/")
        entry = head + "/" if rest else head
        totals[entry] = totals.get(entry, 0) + measure(size)
    return totals


def _biggest(totals: dict[str, int], unit: str) -> str:
    top = sorted(totals.items(), key=lambda item: -item[1])[:BIGGEST_SHOWN]
    return ", ".join(f"{entry} ({amount:,} {unit})" for entry, amount in top)
