"""The local sandbox: one subprocess per job in a fresh temporary workspace."""

from __future__ import annotations

import asyncio
import math
import os
import resource
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from codeheal.errors import SandboxError
from codeheal.sandboxes.base import OUTPUT_CAP_BYTES, Job, RunResult, run_coroutine_sync

FLOOD_BYTES = 8 * 1024 * 1024
"""A process that prints more than this is killed: it would only burn its time limit."""
DRAIN_GRACE_S = 1.0


class LocalSandbox:
    """Runs jobs as child processes of this one, each in its own process group,
    killed as a group at the deadline, with resource limits and a scrubbed environment."""

    isolation = "basic"

    def __init__(self, *, python: str = sys.executable, memory_mb: int = 2048) -> None:
        self.python = python
        self.memory_mb = memory_mb

    def run(self, job: Job) -> RunResult:
        return run_coroutine_sync(self.arun(job))

    async def arun(self, job: Job) -> RunResult:
        try:
            workspace_handle = tempfile.TemporaryDirectory(prefix="codeheal-")
        except OSError as exc:
            raise SandboxError(f"local sandbox: cannot create a workspace: {exc}") from exc
        with workspace_handle as workspace:
            _write_files(Path(workspace), job.files)
            started = time.perf_counter()
            try:
                proc = await asyncio.create_subprocess_exec(
                    self.python,
                    *job.python_args,
                    cwd=workspace,
                    env={**_scrubbed_env(workspace), **job.env},
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    start_new_session=True,
                    preexec_fn=_limits(job.timeout_s, self.memory_mb),
                )
            except OSError as exc:
                raise SandboxError(f"local sandbox: cannot start {self.python}: {exc}") from exc
            outcome = await _supervise(proc, job.timeout_s)
            return RunResult(
                exit_code=outcome.exit_code,
                stdout=outcome.stdout,
                stderr=outcome.stderr,
                timed_out=outcome.timed_out,
                output_truncated=outcome.truncated,
                seconds=time.perf_counter() - started,
                isolation=self.isolation,
                collected=_collect(Path(workspace), job.collect),
            )


class _Outcome:
    def __init__(self) -> None:
        self.exit_code: int | None = None
        self.stdout = ""
        self.stderr = ""
        self.timed_out = False
        self.truncated = False


async def _supervise(proc: asyncio.subprocess.Process, timeout_s: float) -> _Outcome:
    outcome = _Outcome()
    flooded = asyncio.Event()
    readers = [
        asyncio.ensure_future(_read_tail(proc.stdout, flooded)),
        asyncio.ensure_future(_read_tail(proc.stderr, flooded)),
    ]
    waiter = asyncio.ensure_future(proc.wait())
    flood_waiter = asyncio.ensure_future(flooded.wait())
    try:
        done, _ = await asyncio.wait(
            {waiter, flood_waiter}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
        )
        if waiter not in done:
            outcome.timed_out = flood_waiter not in done
            _kill_group(proc.pid)
        await waiter
        outcome.exit_code = None if (outcome.timed_out or flooded.is_set()) else proc.returncode
        _kill_group(proc.pid)  # grandchildren left in the group must not outlive the job
        done, pending = await asyncio.wait(readers, timeout=DRAIN_GRACE_S)
        for task in pending:
            task.cancel()
    finally:
        flood_waiter.cancel()
        if proc.returncode is None:
            _kill_group(proc.pid)
    results = [t.result() if t in done else (b"", True) for t in readers]
    (out, out_cut), (err, err_cut) = results
    outcome.stdout = out.decode("utf-8", "replace")
    outcome.stderr = err.decode("utf-8", "replace")
    outcome.truncated = out_cut or err_cut or flooded.is_set()
    return outcome


async def _read_tail(stream: asyncio.StreamReader | None, flooded: asyncio.Event) -> tuple[bytes, bool]:
    """Keep the last OUTPUT_CAP_BYTES of a stream; flag a flood past FLOOD_BYTES."""
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
            break
    return bytes(kept), total > OUTPUT_CAP_BYTES


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _limits(timeout_s: float, memory_mb: int) -> Callable[[], None]:
    cpu_s = math.ceil(timeout_s) + 1
    memory = memory_mb * 1024 * 1024

    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_FSIZE, (16 * 1024 * 1024,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


def _scrubbed_env(workspace: str) -> dict[str, str]:
    """No host secrets: only what Python needs to start."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": workspace,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "TMPDIR": workspace,
    }


def _write_files(workspace: Path, files: Mapping[str, str]) -> None:
    for name, content in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")


def _collect(workspace: Path, names: Sequence[str]) -> dict[str, str]:
    collected = {}
    for name in names:
        path = workspace / name
        if path.is_file():
            collected[name] = path.read_text(encoding="utf-8", errors="replace")[:4 * 1024 * 1024]
    return collected
