"""The project's files as a run read them, kept once per process under a content key.

A run's state, its candidates' `Send` tasks and its checkpoints carry only the key and the
project's path: the files (up to 8 MiB) are not copied into every task and every checkpoint,
and the project's text does not sit in the checkpoint database. A process that does not hold
the key (a run resumed by another process, a server worker) reads the project again and
checks that it gives the same key; a project changed since the run read it cannot be edited
as the run planned, and WorkspaceChanged says so."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping
from types import MappingProxyType

from codeheal.errors import InputError
from codeheal.forms.project.snapshot import read_project

KEPT = 8
"""Workspaces kept in memory at once (a batch runs several projects); older ones are read again."""

_kept: OrderedDict[str, Mapping[str, str]] = OrderedDict()
_lock = threading.Lock()


class WorkspaceChanged(InputError):
    """The project's files are not those the run read at its start."""


def workspace_key(files: Mapping[str, str]) -> str:
    """The content key of a workspace: sha256 over its paths and texts, in path order."""
    digest = hashlib.sha256()
    for path in sorted(files):
        for part in (path, files[path]):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def keep(files: Mapping[str, str]) -> str:
    """Keep `files` (a run's snapshot of its project) and return their key."""
    key = workspace_key(files)
    _remember(key, MappingProxyType(dict(files)))
    return key


def workspace_files(project: str, key: str) -> Mapping[str, str]:
    """The files kept under `key` (read-only), read again from `project` when this process
    does not hold them. Raises WorkspaceChanged when the project no longer gives that key."""
    with _lock:
        files = _kept.get(key)
        if files is not None:
            _kept.move_to_end(key)
            return files
    reread = read_project(project).files
    if workspace_key(reread) != key:
        raise WorkspaceChanged(
            f"the project {project} changed since this run read it: its files are not those the run "
            "started from, so the run cannot go on; start a new run (codeheal fix) on the project as it is now"
        )
    files = MappingProxyType(dict(reread))
    _remember(key, files)
    return files


def _remember(key: str, files: Mapping[str, str]) -> None:
    with _lock:
        _kept[key] = files
        _kept.move_to_end(key)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
