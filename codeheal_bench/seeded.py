"""Seeded bugs in real libraries: `codeheal fix` on code and tests it has never seen as a set.

Two pure-Python libraries from PyPI that ship their tests in the sdist (toolz, boltons; both
BSD-licensed), each fetched at run time into a cache (pinned version and SHA-256), never
committed. Into each, one realistic one-line bug at a time: a wrong operator, an off-by-one, a
wrong variable, swapped arguments, a missing call; some in a function the failing test reaches
only through another one. The test command is the test file a user would name when the bug
shows, with no --target: finding the function is part of the task."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from platformdirs import user_cache_path

from codeheal.errors import ConfigError

CACHE_ENV = "CODEHEAL_SEEDED_CACHE"


@dataclass(frozen=True)
class Library:
    """A library's sdist and what a project made from it holds."""

    name: str
    version: str
    sha256: str
    keep: tuple[str, ...]
    """The top-level entries of the sdist the project holds: the package, its tests, the
    files with pytest's configuration, the licence."""
    suite: str
    """The test command of the whole suite."""

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


@dataclass(frozen=True)
class SeededBug:
    """One line of a library changed into a bug."""

    name: str
    library: str
    kind: str
    file: str
    line: str
    """The line as the library has it (unique in the file)."""
    seeded: str
    """The line with the bug."""
    test_file: str
    """The test file a user would name: it fails with the bug."""

    @property
    def test_command(self) -> str:
        return f"python -m pytest -q {self.test_file}"


LIBRARIES = {
    library.name: library for library in (
        Library("toolz", "1.2.0", "9667a038e9d6ecba37995e26cb2f59ec6420b6ad8dd9677de59db9b956b08490",
                ("toolz", "tlz", "pyproject.toml", "LICENSE.txt"),
                # two tests need what no sandboxed copy has: toolz installed, and multiprocessing
                "python -m pytest -q toolz --deselect toolz/tests/test_package.py::test_has_version "
                "--deselect toolz/sandbox/tests/test_parallel.py::test_fold"),
        Library("boltons", "26.2.0", "d39cfd15c1a1c3bd4d705c82252fa9edb8e4f5e8cc039f8e39afac7b1b47e92c",
                ("boltons", "tests", "pyproject.toml", "LICENSE"), "python -m pytest -q tests"),
    )
}
BUGS = (
    SeededBug("toolz-unique", "toolz", "wrong operator", "toolz/itertoolz.py",
              "            if item not in seen:", "            if item in seen:", "toolz/tests/test_itertoolz.py"),
    SeededBug("toolz-take_nth", "toolz", "off-by-one", "toolz/itertoolz.py",
              "    return itertools.islice(seq, 0, None, n)", "    return itertools.islice(seq, 1, None, n)",
              "toolz/tests/test_itertoolz.py"),
    SeededBug("toolz-drop", "toolz", "swapped arguments", "toolz/itertoolz.py",
              "    return itertools.islice(seq, n, None)", "    return itertools.islice(seq, None, n)",
              "toolz/tests/test_itertoolz.py"),
    SeededBug("toolz-keyfilter", "toolz", "wrong variable", "toolz/dicttoolz.py",
              "        if predicate(k):", "        if predicate(v):", "toolz/tests/test_dicttoolz.py"),
    SeededBug("toolz-update_in", "toolz", "missing call (reached through assoc_in)", "toolz/dicttoolz.py",
              "        inner[k] = func(d[k])", "        inner[k] = d[k]", "toolz/tests/test_dicttoolz.py"),
    SeededBug("toolz-frequencies", "toolz", "wrong operator (reached through recipes.countby)",
              "toolz/itertoolz.py", "        d[item] += 1", "        d[item] = 1", "toolz/tests/test_recipes.py"),
    SeededBug("boltons-floor", "boltons", "off-by-one", "boltons/mathutils.py",
              "    return options[i - 1]", "    return options[i]", "tests/test_mathutils.py"),
    SeededBug("boltons-ceil", "boltons", "wrong call", "boltons/mathutils.py",
              "    i = bisect.bisect_left(options, x)", "    i = bisect.bisect_right(options, x)",
              "tests/test_mathutils.py"),
    SeededBug("boltons-clamp", "boltons", "swapped arguments", "boltons/mathutils.py",
              "    return min(max(x, lower), upper)", "    return min(max(x, upper), lower)", "tests/test_mathutils.py"),
    SeededBug("boltons-lstrip_iter", "boltons", "wrong operator (reached through lstrip)", "boltons/iterutils.py",
              "        if i != strip_value:", "        if i == strip_value:", "tests/test_iterutils.py"),
    SeededBug("boltons-strip_iter", "boltons", "swapped arguments (reached through strip)", "boltons/iterutils.py",
              "    return rstrip_iter(lstrip_iter(iterable, strip_value), strip_value)",
              "    return rstrip_iter(lstrip_iter(strip_value, iterable), strip_value)", "tests/test_iterutils.py"),
    SeededBug("boltons-windowed_iter", "boltons", "off-by-one (reached through windowed and pairwise)",
              "boltons/iterutils.py", "                for _ in range(i):", "                for _ in range(i + 1):",
              "tests/test_iterutils.py"),
)


def cache_dir() -> Path:
    """Where the sdists are kept: $CODEHEAL_SEEDED_CACHE, else codeheal's user cache."""
    return Path(os.environ.get(CACHE_ENV) or user_cache_path("codeheal") / "seeded")


def fetch_sdist(library: Library, cache: Path | None = None) -> Path:
    """The library's sdist, downloaded with pip into the cache unless it is there; ConfigError
    when pip cannot get it or it is not the pinned file."""
    folder = cache or cache_dir()
    found = sorted(folder.glob(f"{library.name}-{library.version}.tar.gz"))
    if not found:
        folder.mkdir(parents=True, exist_ok=True)
        run = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "--quiet",
             "--dest", str(folder), library.requirement],
            capture_output=True, text=True, timeout=300, check=False,
        )
        found = sorted(folder.glob(f"{library.name}-{library.version}.tar.gz"))
        if run.returncode != 0 or not found:
            raise ConfigError(f"cannot download the sdist of {library.requirement}: {run.stderr.strip()[-300:]}")
    digest = hashlib.sha256(found[0].read_bytes()).hexdigest()
    if digest != library.sha256:
        raise ConfigError(f"{found[0]}: SHA-256 {digest}, not the pinned {library.sha256}; delete it to fetch again")
    return found[0]


def library_files(library: Library, sdist: Path) -> dict[str, str]:
    """The project made from the sdist: the text files under its `keep` entries."""
    files = {}
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = PurePosixPath(member.name).parts
            if not member.isfile() or len(parts) < 2 or parts[1] not in library.keep:
                continue
            data = archive.extractfile(member)
            try:
                files[str(PurePosixPath(*parts[1:]))] = io.TextIOWrapper(data, encoding="utf-8").read()
            except UnicodeDecodeError:
                continue  # a binary test fixture: the snapshot leaves those out too
    if not files:
        raise ConfigError(f"{sdist} holds none of {', '.join(library.keep)}")
    return files


def seed(files: dict[str, str], bug: SeededBug) -> dict[str, str]:
    """The project with the bug in it; ConfigError when the line is not there exactly once."""
    text = files.get(bug.file, "")
    lines = text.split("\n")
    if lines.count(bug.line) != 1:
        raise ConfigError(f"{bug.name}: {bug.line.strip()!r} is in {bug.file} {lines.count(bug.line)} times, not once")
    lines[lines.index(bug.line)] = bug.seeded
    return {**files, bug.file: "\n".join(lines)}
