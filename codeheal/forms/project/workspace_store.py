"""The project's files as a run read them, kept once per process under a content key.

A run's state, its candidates' `Send` tasks and its checkpoints carry only the key and the
project's path: the files (up to 8 MiB) are not copied into every task and every checkpoint,
and the project's text does not sit in the checkpoint database. A process that does not hold
the key (a run resumed by another process, a server worker) reads the project again (its
binary files too, kept beside the text for the sandbox alone) and
checks that it gives the same key; a project changed since the run read it cannot be edited
as the run planned, and WorkspaceChanged says so."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from codeheal.errors import InputError
from codeheal.forms.project.snapshot import read_project

KEPT = 8
"""Workspaces kept in memory at once (a batch runs several projects); older ones are read again."""



class Workspace(NamedTuple):
    """A run's project as read: its text files and, for the sandbox alone, its binary ones."""

    files: Mapping[str, str]
    data: Mapping[str, bytes]


_kept: OrderedDict[str, Workspace] = OrderedDict()
_lock = threading.Lock()


class WorkspaceChanged(InputError):
    """The project's files are not those the run read at its start."""


def workspace_key(files: Mapping[str, str], data: Mapping[str, bytes] | None = None) -> str:
    """The content key of a workspace: sha256 over its paths and contents (texts, then the
    binary files), in path order."""
    digest = hashlib.sha256()
    entries = [*((path, files[path].encode("utf-8", "surrogatepass")) for path in sorted(files)),
               *((path, (data or {})[path]) for path in sorted(data or {}))]
    for path, content in entries:
        for part in (path.encode("utf-8", "surrogatepass"), content):
            digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def keep(files: Mapping[str, str], data: Mapping[str, bytes] | None = None) -> str:
    """Keep `files` and the binary `data` (a run's snapshot of its project) and return their key."""
    key = workspace_key(files, data)
    _remember(key, Workspace(MappingProxyType(dict(files)), MappingProxyType(dict(data or {}))))
    return key


def workspace_files(project: str, key: str) -> Mapping[str, str]:
    """The text files kept under `key` (read-only), read again from `project` when this
    process does not hold them. Raises WorkspaceChanged when the project no longer gives that key."""
    return workspace(project, key).files


def workspace(project: str, key: str) -> Workspace:
    """The text and binary files kept under `key` (read-only), read again as workspace_files."""
    with _lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
            return kept
    reread = read_project(project)
    if workspace_key(reread.files, reread.data) != key:
        raise WorkspaceChanged(
            f"the project {project} changed since this run read it: its files are not those the run "
            "started from, so the run cannot go on; start a new run (codeheal fix) on the project as it is now"
        )
    kept = Workspace(MappingProxyType(dict(reread.files)), MappingProxyType(dict(reread.data)))
    _remember(key, kept)
    return kept


def _remember(key: str, kept: Workspace) -> None:
    with _lock:
        _kept[key] = kept
        _kept.move_to_end(key)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
