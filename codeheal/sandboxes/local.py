"""The local sandbox: one subprocess per job in a fresh temporary workspace, inside bubblewrap
when it is available ("bwrap" isolation), else a plain child process ("basic" isolation).

Both levels: rlimits (CPU, address space, file size, open files, processes), a throw-away uid
when running as root (so the process limit holds and leftovers can be swept), a scrubbed
environment, a wall-clock deadline that kills the whole tree, and capped output."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

from codeheal.errors import SandboxError
from codeheal.sandboxes import bwrap
from codeheal.sandboxes.base import OUTPUT_CAP_BYTES, Job, RunResult, run_coroutine_sync
from codeheal.sandboxes.limits import Limits, drop_to, job_uid, kill_uid, readable_by_anyone

FLOOD_BYTES = 8 * 1024 * 1024
"""A process that prints more than this is killed: it would only burn its time limit."""
DRAIN_GRACE_S = 1.0
_warned_basic = False


class IsolationWarning(UserWarning):
    """Candidates run with basic isolation only, because bubblewrap is unavailable."""


class LocalSandbox:
    """Runs jobs as child processes of this one, isolated by bubblewrap when present.

    `require_isolation` turns a missing or unusable bubblewrap into a SandboxError
    instead of a fallback to basic isolation."""

    def __init__(
        self, *, python: str = sys.executable, memory_mb: int = 2048, require_isolation: bool = False
    ) -> None:
        self.python = python
        self.memory_mb = memory_mb
        self.require_isolation = require_isolation
        self._bwrap: str | None = None
        self._checked = False

    @property
    def isolation(self) -> str:
        """How this sandbox contains its jobs: "bwrap" or "basic" (checked once)."""
        if not self._checked:
            self._bwrap = self._find_bwrap()
            self._checked = True
        return "bwrap" if self._bwrap else "basic"

    def run(self, job: Job) -> RunResult:
        return run_coroutine_sync(self.arun(job))

    async def arun(self, job: Job) -> RunResult:
        # File-system work runs in a worker thread: the event loop may be serving other runs
        # (LangGraph server, solve_many) and must never block on it.
        isolation, workspace_handle, uid = await asyncio.to_thread(self._set_up, job)
        workspace = workspace_handle.name
        try:
            limits = Limits(timeout_s=job.timeout_s, memory_mb=self.memory_mb)
            argv, env, preexec = await asyncio.to_thread(self._command, job, workspace, uid, limits)
            started = time.perf_counter()
            proc = await _spawn(argv, workspace, env, preexec)

            async def sweep() -> None:
                if uid is not None:  # e.g. a child in a session of its own
                    await asyncio.to_thread(kill_uid, uid)

            outcome = await _supervise(proc, job.timeout_s, sweep)
            seconds = time.perf_counter() - started
            collected = await asyncio.to_thread(_collect, Path(workspace), job.collect)
        finally:
            await asyncio.to_thread(workspace_handle.cleanup)
        return RunResult(
            exit_code=outcome.exit_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            timed_out=outcome.timed_out,
            output_truncated=outcome.truncated,
            seconds=seconds,
            isolation=isolation,
            collected=collected,
        )

    def _set_up(self, job: Job) -> tuple[str, tempfile.TemporaryDirectory, int | None]:
        """Isolation level, a fresh workspace holding the job's files, and the job's uid."""
        isolation = self.isolation
        try:
            workspace_handle = tempfile.TemporaryDirectory(prefix="codeheal-")
        except OSError as exc:
            raise SandboxError(
                f"local sandbox: cannot create a workspace in {tempfile.gettempdir()}: {exc}; "
                "set TMPDIR to a writable folder"
            ) from exc
        try:
            uid = job_uid() if isolation == "bwrap" or self._can_drop_root(job.python or self.python) else None
            _prepare_workspace(Path(workspace_handle.name), job.files, uid)
        except BaseException:
            workspace_handle.cleanup()
            raise
        return isolation, workspace_handle, uid

    def _can_drop_root(self, python: str) -> bool:
        """Basic isolation runs the interpreter directly, so a job uid must be able to reach it;
        an interpreter under root's home is not, and the job then keeps root (without a
        process limit: one more reason to install bubblewrap)."""
        prefixes = bwrap.python_prefixes(python)
        return all(readable_by_anyone(p) for p in (python, *prefixes))

    def _find_bwrap(self) -> str | None:
        global _warned_basic
        try:
            return bwrap.find_bwrap()
        except SandboxError as exc:
            if self.require_isolation:
                raise SandboxError(f"isolation is required (require_isolation) but {exc}") from exc
            if not _warned_basic:
                _warned_basic = True
                warnings.warn(
                    f"codeheal runs candidates with basic isolation only: {exc}. "
                    "Set require_isolation to make this an error.",
                    IsolationWarning,
                    stacklevel=4,
                )
            return None

    def _command(
        self, job: Job, workspace: str, uid: int | None, limits: Limits
    ) -> tuple[list[str], dict[str, str], Callable[[], None]]:
        """argv, environment and pre-exec hook of the job's process."""
        python = job.python or self.python
        if self._bwrap:
            env = {**_scrubbed_env(bwrap.WORKSPACE, "/tmp"), **job.env}
            argv = bwrap.bwrap_argv(
                self._bwrap, workspace=workspace, python=python,
                python_args=job.python_args, env=env, uid=uid,
            )
            outer_env = {"PATH": _scrubbed_env(workspace, workspace)["PATH"]}
            preexec = limits.apply
        else:
            argv = [python, *job.python_args]
            outer_env = {**_scrubbed_env(workspace, workspace), **job.env}
            drop = drop_to(uid) if uid is not None else None

            def preexec() -> None:
                limits.apply()
                if drop:
                    drop()

        return argv, outer_env, preexec


async def _spawn(
    argv: list[str], workspace: str, env: dict[str, str], preexec: Callable[[], None]
) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *argv,
            cwd=workspace,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            preexec_fn=preexec,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"local sandbox: cannot start {argv[0]}: {exc}") from exc


class _Outcome:
    def __init__(self) -> None:
        self.exit_code: int | None = None
        self.stdout = ""
        self.stderr = ""
        self.timed_out = False
        self.truncated = False


async def _supervise(
    proc: asyncio.subprocess.Process, timeout_s: float, sweep: Callable[[], Awaitable[None]]
) -> _Outcome:
    """Wait for the process (or its deadline, or an output flood), kill what is left, then
    drain its output. `sweep` kills whatever escaped the process group."""
    outcome = _Outcome()
    flooded = asyncio.Event()
    readers = [
        asyncio.ensure_future(_read_tail(proc.stdout, flooded)),
        asyncio.ensure_future(_read_tail(proc.stderr, flooded)),
    ]
    exited = _exit_future(proc.pid)
    # Process.wait() also waits for the pipes to close, which an escaped child can hold open.
    waiter = asyncio.ensure_future(proc.wait())
    flood_waiter = asyncio.ensure_future(flooded.wait())
    try:
        done, _ = await asyncio.wait(
            {exited, flood_waiter}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
        if exited not in done:
            outcome.timed_out = flood_waiter not in done
            _kill_group(proc.pid)
        _kill_group(proc.pid)  # grandchildren left in the group must not outlive the job
        await sweep()
        done, pending = await asyncio.wait([*readers, waiter], timeout=DRAIN_GRACE_S)
        for task in pending:
            task.cancel()
        killed = outcome.timed_out or flooded.is_set()
        outcome.exit_code = None if killed else proc.returncode
    finally:
        flood_waiter.cancel()
        exited.cancel()
        if proc.returncode is None:
            _kill_group(proc.pid)
    results = [t.result() if t in done else (b"", True) for t in readers]
    (out, out_cut), (err, err_cut) = results
    outcome.stdout = out.decode("utf-8", "replace")
    outcome.stderr = err.decode("utf-8", "replace")
    outcome.truncated = out_cut or err_cut or flooded.is_set()
    return outcome


def _exit_future(pid: int) -> asyncio.Future[None]:
    """Done when process `pid` exits (a pidfd: no polling, no wait for its pipes)."""
    loop = asyncio.get_running_loop()
    exited: asyncio.Future[None] = loop.create_future()
    try:
        pidfd = os.pidfd_open(pid)
    except ProcessLookupError:
        exited.set_result(None)
        return exited

    def on_exit() -> None:
        if not exited.done():
            exited.set_result(None)

    def close(_: asyncio.Future[None]) -> None:
        loop.remove_reader(pidfd)
        os.close(pidfd)

    loop.add_reader(pidfd, on_exit)
    exited.add_done_callback(close)
    return exited


async def _read_tail(stream: asyncio.StreamReader | None, flooded: asyncio.Event) -> tuple[bytes, bool]:
    """Keep the last OUTPUT_CAP_BYTES of a stream, read to its end; flag a flood past FLOOD_BYTES."""
    kept = bytearray()
    total = 0
    assert stream is not None
    while chunk := await stream.read(65536):
        total += len(chunk)
        kept += chunk
        if len(kept) > OUTPUT_CAP_BYTES:
            del kept[: len(kept) - OUTPUT_CAP_BYTES]
        if total > FLOOD_BYTES:
            flooded.set()
    return bytes(kept), total > OUTPUT_CAP_BYTES


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _scrubbed_env(home: str, tmp: str) -> dict[str, str]:
    """No host secrets: only what Python needs to start."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "TMPDIR": tmp,
    }


def _prepare_workspace(workspace: Path, files: Mapping[str, str], uid: int | None) -> None:
    """Write the job's files; hand the folder to the job uid (0711: bubblewrap, root without
    its capabilities, must still be able to enter it)."""
    try:
        for name, content in files.items():
            path = workspace / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        if uid is not None:
            # its subfolders too: a project's tests may write beside themselves
            folders = {p for name in files for p in (workspace / name).parents if p.is_relative_to(workspace)}
            for folder in folders | {workspace}:
                os.chown(folder, uid, uid)
            workspace.chmod(0o711)
    except OSError as exc:
        raise SandboxError(f"local sandbox: the workspace {workspace} is not writable: {exc}") from exc


def _collect(workspace: Path, names: Sequence[str]) -> dict[str, str]:
    collected = {}
    for name in names:
        path = workspace / name
        if path.is_file():
            collected[name] = path.read_text(encoding="utf-8", errors="replace")[:4 * 1024 * 1024]
    return collected
