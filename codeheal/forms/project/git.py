"""git, run in a project on the host so that nothing of the project runs: no fsmonitor
command, no hook (both off by SAFE_CONFIG), no filter, textconv or external diff (only
commands that never filter are used: rev-parse, ls-files, ls-tree, and hash-object
--no-filters for file content; not status or diff, which refresh the index through the
project's clean filters), no GIT_* variable of codeheal's environment."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 30
SAFE_CONFIG = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.untrackedCache=false", "diff.external=",
    "core.sshCommand=false", "protocol.allow=never",
)
"""Settings that override the project's own configuration: its commands are never started."""


def run_git(root: Path, *args: str) -> bytes:
    """The output of `git ARGS` in `root`, with the project's commands off (SAFE_CONFIG).
    Raises OSError or subprocess.SubprocessError (CalledProcessError outside a repository)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    config = [word for setting in (*SAFE_CONFIG, f"safe.directory={root}") for word in ("-c", setting)]
    return subprocess.run(
        ["git", *config, "-C", str(root), *args],
        capture_output=True, timeout=GIT_TIMEOUT_S, env=env, check=True, stdin=subprocess.DEVNULL,
    ).stdout


def uncommitted(root: Path, paths: list[str]) -> list[str]:
    """Those of `paths` (relative to `root`) that differ from the last commit: untracked,
    staged, or changed on disk, compared by content without git's filters. [] outside a
    repository or without git."""
    try:
        prefix = run_git(root, "rev-parse", "--show-prefix").decode("utf-8", "surrogateescape").strip()
        index = _entries(run_git(root, "ls-files", "-s", "-z", "--full-name", "--", *paths), 1)
        present = [p for p in paths if (root / p).is_file()]
        disk = dict(zip(present, run_git(root, "hash-object", "--no-filters", "--", *present).decode().split()))
    except (OSError, subprocess.SubprocessError):
        return []
    try:
        head = _entries(run_git(root, "ls-tree", "-z", "--full-name", "HEAD", "--", *paths), 2)
    except subprocess.CalledProcessError:
        head = {}  # no commit yet: everything is uncommitted
    changed = []
    for path in paths:
        name = prefix + path
        if index.get(name) is None or index[name] != head.get(name) or index[name] != disk.get(path):
            changed.append(path)
    return sorted(changed)


def _entries(listing: bytes, hash_field: int) -> dict[str, str]:
    """path -> object id, from `ls-files -s` (field 1) or `ls-tree` (field 2) output."""
    found = {}
    for entry in listing.decode("utf-8", "surrogateescape").split("\0"):
        if "\t" in entry:
            meta, path = entry.split("\t", 1)
            found[path] = meta.split()[hash_field]
    return found
