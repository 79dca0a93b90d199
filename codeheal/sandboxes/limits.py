"""Resource limits of a sandboxed process, and the throw-away uid that makes them hold for root.

Root ignores RLIMIT_NPROC, so when codeheal runs as root each job runs as a uid of its own
from an unused high range: the process limit then applies, the job cannot signal anything
but itself, and every process it leaves behind can be found (and killed) by that uid."""

from __future__ import annotations

import math
import os
import secrets
import signal
import stat
import time
from dataclasses import dataclass

JOB_UID_BASE = 1_600_000_000
JOB_UID_SPAN = 1 << 24
"""Job uids are drawn from [BASE, BASE + SPAN): far above human, system and subuid ranges."""
SWEEP_WAIT_S = 1.0
MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one job may use."""

    timeout_s: float
    memory_mb: int = 2048
    """Address space of each process (RLIMIT_AS); also the whole job's memory where a
    memory cgroup can be had (see cgroups.py)."""
    processes: int = 64
    """Processes and threads of the job (RLIMIT_NPROC; needs a job uid or a user namespace)."""
    file_mb: int = 16
    disk_mb: int = 64
    """The job's private /tmp, workspace included (bubblewrap only: a size-limited tmpfs)."""
    open_files: int = 256

    def prlimit_argv(self, *, own_processes: bool = True) -> list[str]:
        """`prlimit` (util-linux) setting these limits, to go before the job's command.

        It runs inside the sandbox once its namespaces exist, so RLIMIT_NPROC counts only the
        job's processes (a user namespace of its own, or the job uid), not every process the
        user runs: set on bubblewrap itself it stopped the namespace from being created.
        `own_processes` False (basic isolation as an ordinary user): RLIMIT_NPROC would count
        the user's other processes and stop the job's first fork, so it is not set."""
        cpu_s = math.ceil(self.timeout_s) + 1
        nproc = [f"--nproc={self.processes}"] if own_processes else []
        return [
            "prlimit", f"--cpu={cpu_s}", f"--as={self.memory_mb * MB}", f"--fsize={self.file_mb * MB}",
            f"--nofile={self.open_files}", *nproc, "--core=0", "--",
        ]


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


def drop_argv(uid: int) -> list[str]:
    """`setpriv` (util-linux) switching to `uid` (its group too, no supplementary groups, no
    capabilities, no way back), to go before the job's command."""
    return ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
            "--inh-caps=-all", "--no-new-privs", "--"]
