"""A cgroup per job, where one can be made: the job's total memory and process count.

rlimits bound each process; a cgroup bounds the job as a whole (sixty processes of 1.9 GB
each stay under a 2 GB address-space limit apiece). cgroup v2 is used where this process may
create a child of its own group with the memory and pids controllers, cgroup v1 where its
memory and pids hierarchies are writable (root). Elsewhere there is none, and only the
per-process limits hold (docs/security.md)."""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
REMOVE_WAIT_S = 1.0
ENTER_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
"""Run by /bin/sh before the job: it moves itself into the job's groups, then becomes the job,
so every process of the job starts inside them (no pre-exec hook in a threaded host)."""


@dataclass(frozen=True)
class JobGroup:
    """The cgroup folders of one job (one for v2, one per controller for v1)."""

    folders: tuple[Path, ...]

    def enter_argv(self) -> list[str]:
        """The command prefix that runs the rest of an argv inside these groups."""
        return ["/bin/sh", "-c", ENTER_SCRIPT, "sh", *(str(f / "cgroup.procs") for f in self.folders), "--"]

    def remove(self) -> None:
        """Kill what is left in the groups and remove them (best effort: an empty group
        left behind costs nothing and is gone with the next boot)."""
        deadline = time.monotonic() + REMOVE_WAIT_S
        for folder in self.folders:
            while True:
                try:
                    for pid in (folder / "cgroup.procs").read_text().split():
                        os.kill(int(pid), signal.SIGKILL)
                    folder.rmdir()
                    break
                except (ProcessLookupError, OSError):
                    if not folder.exists() or time.monotonic() > deadline:
                        break
                    time.sleep(0.01)


def job_group(memory_mb: int, processes: int) -> JobGroup | None:
    """New cgroups limiting a job's total memory and processes, or None where this process
    cannot make them."""
    name = f"codeheal-job-{secrets.token_hex(6)}"
    made: list[Path] = []
    try:
        if (ROOT / "cgroup.controllers").exists():
            plan = [(ROOT / _own("") / name, {"memory.max": memory_mb * 2**20, "pids.max": processes})]
        else:
            plan = [
                (ROOT / "memory" / _own("memory") / name, {"memory.limit_in_bytes": memory_mb * 2**20}),
                (ROOT / "pids" / _own("pids") / name, {"pids.max": processes}),
            ]
        for folder, settings in plan:
            folder.mkdir()
            made.append(folder)
            for key, value in settings.items():
                (folder / key).write_text(str(value))
    except (OSError, ValueError):
        JobGroup(tuple(made)).remove()
        return None
    return JobGroup(tuple(made))


def _own(controller: str) -> Path:
    """This process's group in the hierarchy of `controller` ("" for cgroup v2), relative
    to that hierarchy's root."""
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") or controller == controllers == "":
            return Path(path.lstrip("/"))
    raise ValueError(f"no cgroup hierarchy for {controller!r}")
