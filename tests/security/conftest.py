"""Guards and helpers for the hostile-code suite.

The hostile cases run with this pytest process moved into a pids + memory cgroup, so that a
broken sandbox lets a fork or memory bomb exhaust only the test run, not the machine. Where
no cgroup can be made, a non-root run gets rlimits instead; a root run without cgroups skips."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from codeheal.sandboxes import limits as sandbox_limits
from codeheal.sandboxes import local

GUARD_PIDS = 1024
GUARD_MEMORY = 6 * 1024**3
CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str | None:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(",") or (controller == "" and controllers == ""):
            return path
    return None


def _make_groups() -> list[Path]:
    """New cgroups holding this process, with the guard limits; [] if none can be made."""
    name = f"codeheal-hostile-{os.getpid()}"
    if (CGROUP_ROOT / "cgroup.controllers").exists():
        parent = CGROUP_ROOT / (_own_path("") or "/").lstrip("/")
        settings = [{"pids.max": GUARD_PIDS, "memory.max": GUARD_MEMORY}]
        groups = [parent / name]
    else:
        groups, settings = [], []
        for controller, setting in (("pids", {"pids.max": GUARD_PIDS}),
                                    ("memory", {"memory.limit_in_bytes": GUARD_MEMORY})):
            own = _own_path(controller)
            if own is None:
                return []
            groups.append(CGROUP_ROOT / controller / own.lstrip("/") / name)
            settings.append(setting)
    made = []
    try:
        for group, setting in zip(groups, settings):
            _remove_stale(group.parent)
            group.mkdir()
            made.append(group)
            for key, value in setting.items():
                (group / key).write_text(str(value))
            (group / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        _remove_groups(made)
        return []
    return made


def _remove_stale(parent: Path) -> None:
    """Empty guard groups left by a test run that was killed before its teardown."""
    for stale in parent.glob("codeheal-hostile-*"):
        if not (stale / "cgroup.procs").read_text().strip():
            stale.rmdir()


def _remove_groups(groups: list[Path]) -> None:
    for group in groups:
        try:
            (group.parent / "cgroup.procs").write_text(str(os.getpid()))
            for pid in (group / "cgroup.procs").read_text().split():
                if int(pid) > 1:
                    os.kill(int(pid), 9)
            time.sleep(0.05)
            group.rmdir()
        except OSError:
            pass


@pytest.fixture(scope="module")
def contained() -> Iterator[str]:
    """Run the module's tests inside the guard; yields how they are guarded."""
    groups = _make_groups()
    if groups:
        yield "cgroup"
        _remove_groups(groups)
    elif os.geteuid() != 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (4096, resource.getrlimit(resource.RLIMIT_NPROC)[1]))
        yield "rlimit"
    else:
        pytest.skip("running as root with no writable cgroup: no guard for the hostile cases")


@pytest.fixture
def job_uids(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The uids the sandbox gives its jobs during a test (none when not running as root)."""
    seen: list[int] = []

    def recording() -> int | None:
        uid = sandbox_limits.job_uid()
        if uid is not None:
            seen.append(uid)
        return uid

    monkeypatch.setattr(local, "job_uid", recording)
    return seen

