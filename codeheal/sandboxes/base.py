"""The Sandbox protocol: run Python on a set of files in a fresh workspace, with a deadline."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Protocol, TypeVar, runtime_checkable

T = TypeVar("T")

OUTPUT_CAP_BYTES = 64 * 1024
"""How much of each of stdout and stderr a sandbox keeps; the rest is cut and flagged."""
REPORT_CAP_BYTES = 4 * 1024 * 1024
"""How much of a job's report channel a sandbox keeps; the rest is dropped."""
REPORT_FD_ENV = "CODEHEAL_REPORT_FD"
"""The environment variable naming the report channel's descriptor inside the job."""
SITE_ENV = "CODEHEAL_SITE"
"""Set in a job that reports (Job.report) whose test process runs with its environment's own
site-packages: it starts with -S (the local sandbox starts a project's interpreter so, the
project form a launcher's python), and codeheal's launcher adds them (site.main(), with their
`.pth` files, which may run the project's code) only once the harness holds its key
(evaluation/pytest_launch.py)."""


@dataclass(frozen=True)
class Job:
    """What to run: files written into an empty workspace (text as UTF-8, bytes as they are),
    then `python <python_args>` in it, or `command` (found on the job's PATH) when one is
    given: on its own without `python_args`, else after them (a supervisor script that starts
    the command)."""

    files: Mapping[str, str | bytes]
    python_args: Sequence[str]
    timeout_s: float
    command: Sequence[str] = ()
    """A command to run instead of the interpreter (a project's `make test`, `uv run pytest`):
    the job's interpreter folder, then /usr/local/bin, /usr/bin and /bin are its PATH, and the
    workspace is on PYTHONPATH, unless the job reports (then the supervisor starts codeheal's
    harness by its absolute path, and nothing of the workspace runs at the interpreter's start)."""
    report: bool = False
    """Give the job a report channel: a descriptor the host opened, named by the
    REPORT_FD_ENV variable (not a workspace file, so listing the workspace does not find
    it); what the job writes there comes back as RunResult.report."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment variables; the sandbox passes no host variables of its own."""
    session: str | None = None
    """The run the job belongs to, which the sandbox is told of when it ends; no state is
    shared between jobs (E2B gives each job a remote sandbox of its own, the local sandbox a
    fresh workspace). None: a job of no run."""
    read_only: frozenset[str] = frozenset()
    """Names among `files` the job cannot change: the tests, their configuration and
    codeheal's own harness files (bubblewrap mounts each read-only, in folders it cannot
    rename, beside a read-only empty `__pycache__`)."""
    python: str | None = None
    """The interpreter to run instead of the sandbox's own, e.g. a project's virtualenv: the
    local sandbox runs it with its own site-packages, read-only (runtime.project_runtime). E2B
    runs its own Python."""
    folders: frozenset[str] = frozenset()
    """Empty folders made in the workspace (relative paths), beside those holding `files`."""
    workdir: str | None = None
    """Where the workspace appears inside the sandbox and the job runs from: an absolute path,
    a project's own path on the host, so its editable installs, `.pth` files and paths in its
    configuration lead to the copy (bubblewrap only: the host's folder stays hidden behind
    it). None: the sandbox's own place (bwrap.WORKSPACE)."""

    def __post_init__(self) -> None:
        for name in (*self.files, *self.folders):
            path = PurePosixPath(name)
            if path.is_absolute() or ".." in path.parts or not path.parts:
                raise ValueError(f"job file {name!r}: give a relative path inside the workspace")
        if self.workdir is not None and not PurePosixPath(self.workdir).is_absolute():
            raise ValueError(f"job workdir {self.workdir!r}: give an absolute path")
        if unknown := sorted(set(self.read_only) - set(self.files)):
            raise ValueError(f"read-only job files {unknown} are not among its files")

    def argv(self, interpreter: Sequence[str]) -> list[str]:
        """The job's command line, `interpreter` being how the sandbox starts its Python."""
        if self.command and not self.python_args:
            return list(self.command)
        return [*interpreter, *self.python_args, *self.command]


@dataclass(frozen=True)
class RunResult:
    """What came back from one Job."""

    exit_code: int | None
    """None when the process was killed (timeout or output flood)."""
    stdout: str
    stderr: str
    timed_out: bool
    output_truncated: bool
    seconds: float
    isolation: str
    """How the run was contained, e.g. "bwrap", "basic" or "e2b"."""
    report: str = ""
    """What the job wrote to its report channel (at most REPORT_CAP_BYTES)."""

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
"""A command job's PATH in the local sandbox, after its interpreter's own bin folder."""


@runtime_checkable
class Sandbox(Protocol):
    """Somewhere untrusted code can run, asynchronously (both sandboxes are async at heart;
    the blocking face is derived once: `SyncFace`, `run_coroutine_sync`). Test failures are
    results; only infrastructure faults (the sandbox cannot start, the transport fails)
    raise SandboxError."""

    async def arun(self, job: Job) -> RunResult: ...


@runtime_checkable
class SessionSandbox(Sandbox, Protocol):
    """A sandbox that holds resources for the jobs of a session (E2B: the remote sandboxes of
    its running jobs): told when it ends."""

    async def aclose_session(self, session: str) -> None: ...


class SyncFace:
    """The blocking face of a sandbox, derived from its async protocol."""

    def run(self: Sandbox, job: Job) -> RunResult:
        """Run `job`, blocking until it is done."""
        return run_coroutine_sync(self.arun(job))

    def close_session(self: SessionSandbox, session: str) -> None:
        """Release what the sandbox keeps for `session`, blocking until it is done."""
        run_coroutine_sync(self.aclose_session(session))


def run_coroutine_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, even when the calling
    thread already runs an event loop (Jupyter, a sync node inside an async app)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()
