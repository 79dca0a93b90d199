"""Resource limits of a sandboxed process, and the throw-away uid that makes them hold for root.

Root ignores RLIMIT_NPROC, so when codeheal runs as root each job runs as a uid of its own
from an unused high range: the process limit then applies, the job cannot signal anything
but itself, and every process it leaves behind can be found (and killed) by that uid."""

from __future__ import annotations

import math
import os
import resource
import secrets
import signal
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass

JOB_UID_BASE = 1_600_000_000
JOB_UID_SPAN = 1 << 24
"""Job uids are drawn from [BASE, BASE + SPAN): far above human, system and subuid ranges."""
SWEEP_WAIT_S = 1.0


@dataclass(frozen=True)
class Limits:
    """What one job may use."""

    timeout_s: float
    memory_mb: int = 2048
    """Address space of each process (RLIMIT_AS)."""
    processes: int = 64
    """Processes and threads of the job (RLIMIT_NPROC; needs a job uid or a user namespace)."""
    file_mb: int = 16
    open_files: int = 256

    def apply(self) -> None:
        """Set the limits on the calling process (children inherit them)."""
        cpu_s = math.ceil(self.timeout_s) + 1
        for limit, value in (
            (resource.RLIMIT_CPU, cpu_s),
            (resource.RLIMIT_AS, self.memory_mb * 1024 * 1024),
            (resource.RLIMIT_FSIZE, self.file_mb * 1024 * 1024),
            (resource.RLIMIT_NOFILE, self.open_files),
            (resource.RLIMIT_NPROC, self.processes),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(limit, (value, value))


def job_uid() -> int | None:
    """A fresh uid for one job when running as root, else None (the caller's uid is kept)."""
    if os.geteuid() != 0:
        return None
    return JOB_UID_BASE + secrets.randbelow(JOB_UID_SPAN)


def readable_by_anyone(path: str) -> bool:
    """Whether an unprivileged uid can reach and read `path` (every folder on the way
    searchable by others, the path itself readable and searchable/executable by others)."""
    real = os.path.realpath(path)
    try:
        if os.stat(real).st_mode & (stat.S_IROTH | stat.S_IXOTH) != stat.S_IROTH | stat.S_IXOTH:
            return False
        parent = os.path.dirname(real)
        while parent != "/":
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
            parent = os.path.dirname(parent)
    except OSError:
        return False
    return True


def drop_to(uid: int) -> Callable[[], None]:
    """A preexec step that switches the child to `uid` (group too, no supplementary groups)."""

    def drop() -> None:
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)

    return drop


def processes_of(uid: int) -> list[int]:
    """Live (non-zombie) processes owned by `uid`."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if not name.isdigit() or os.stat(f"/proc/{name}").st_uid != uid:
                continue
            with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as stat:
                state = stat.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state != "Z":
            found.append(int(name))
    return found


def kill_uid(uid: int) -> bool:
    """SIGKILL every process of a job uid until none is left; False if some survived
    SWEEP_WAIT_S (they are then still bounded by the job's rlimits)."""
    deadline = time.monotonic() + SWEEP_WAIT_S
    while pids := processes_of(uid):
        if time.monotonic() > deadline:
            return False
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
    return True
