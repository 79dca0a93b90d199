"""The local sandbox: one process tree per job, inside bubblewrap ("bwrap" isolation, the
default) or, when the user chose it, as a plain child process ("basic" isolation).

Both levels: rlimits set inside the job by prlimit (CPU, address space, file size, open
files, processes), a cgroup bounding the whole job's memory and processes where one can be
had, a throw-away uid when running as root, the standard library and pytest only on the
import path, a scrubbed environment, a wall-clock deadline that kills the whole tree, capped
output, and the report on a pipe the host opened (nothing is read back from the workspace)."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from codeheal.context import Isolation
from codeheal.errors import SandboxError
from codeheal.sandboxes import bwrap
from codeheal.sandboxes.base import (
    OUTPUT_CAP_BYTES, REPORT_CAP_BYTES, REPORT_FD_ENV, SANDBOX_PATH, SITE_ENV, Job, RunResult, SyncFace,
)
from codeheal.sandboxes.cgroups import job_group
from codeheal.sandboxes.limits import Limits, drop_argv, job_uid, kill_uid, readable_by_anyone
from codeheal.sandboxes.runtime import DISCOVERY_ARGS, Runtime, discovery_runtime, project_runtime, runtime_of

FLOOD_BYTES = 8 * 1024 * 1024
"""A process that prints more than this is killed: it would only burn its time limit."""
DRAIN_GRACE_S = 1.0
PROBE_TIMEOUT_S = 30.0
_warned_basic = False


class IsolationWarning(UserWarning):
    """Candidates run with basic isolation only, because the user chose it."""


@dataclass
class _Launch:
    """One job's process, ready to start: its argv and environment, the descriptors it
    inherits, and what to release once it is over."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    report_fd: int
    status_fd: int | None
    uid: int | None
    child_side: _ChildSide
    """The job's ends of its pipes and its file descriptors: closed here once it started."""
    stdin: int | None
    """What the job reads on its input (bubblewrap: the archive its command unpacks); None: nothing."""
    cleanup: ExitStack
    """Everything else to release when the job is over."""


class LocalSandbox(SyncFace):
    """Runs jobs as child process trees of this one.

    `isolation` "bwrap" (the default) needs bubblewrap and raises SandboxError, naming the
    install command, where it is missing or cannot start; "basic" runs without it."""

    def __init__(
        self, *, python: str = sys.executable, memory_mb: int = 2048, isolation: Isolation = "bwrap"
    ) -> None:
        self.python = python
        self.memory_mb = memory_mb
        self.isolation = isolation
        self._bwrap: str | None = None
        self._ready = False
        self._project_runtimes: dict[str, Runtime] = {}

    def check_available(self) -> None:
        """SandboxError naming the install command when bubblewrap is missing (isolation
        "bwrap"): cheap, so a run asks before any model call (the full check, a job started,
        comes with the first job)."""
        if self.isolation == "bwrap":
            bwrap.find_bwrap()

    async def arun(self, job: Job) -> RunResult:
        # File-system work runs in a worker thread: the event loop may be serving other runs
        # (LangGraph server, solve_many) and must never block on it.
        if not self._ready:
            await asyncio.to_thread(self._check)
        return await self._execute(job)

    def _check(self) -> None:
        """Make sure a job can start here at all (once): a sandbox that cannot start is an
        infrastructure fault, reported before any attempt with what to do about it."""
        global _warned_basic
        if self.isolation == "bwrap":
            self._bwrap = bwrap.find_bwrap()
        elif not _warned_basic:
            _warned_basic = True
            warnings.warn(
                "codeheal runs candidates with basic isolation only (isolation=\"basic\"): "
                "no filesystem, network or pid isolation. Install bubblewrap for full isolation.",
                IsolationWarning, stacklevel=5,
            )
        probe = asyncio.run(self._execute(Job(files={}, python_args=("-c", "import pytest"), timeout_s=PROBE_TIMEOUT_S)))
        if probe.exit_code != 0:
            raise SandboxError(
                f"local sandbox ({self.isolation}) cannot run Python: exit code {probe.exit_code}: "
                f"{probe.stderr.strip()[-500:]}"
                + (f"; {bwrap.start_hint(probe.stderr)}" if self.isolation == "bwrap" else "")
            )
        self._ready = True

    async def _runtime(self, job: Job) -> Runtime:
        """The Runtime `job` runs on. A project's interpreter is asked what it has inside the
        sandbox (once per interpreter): nothing of the project runs on the host."""
        if job.python is None:
            return await asyncio.to_thread(runtime_of, self.python)
        if job.python not in self._project_runtimes:
            probe = Job(files={}, python_args=DISCOVERY_ARGS, timeout_s=PROBE_TIMEOUT_S)
            found = await self._execute(probe, discovery_runtime(job.python))
            if found.exit_code != 0:
                raise SandboxError(
                    f"local sandbox: cannot find pytest for {job.python} (asked inside the sandbox): exit code "
                    f"{found.exit_code}: {found.stderr.strip()[-300:]}; install pytest in the project's environment"
                )
            self._project_runtimes[job.python] = project_runtime(job.python, found.stdout)
        return self._project_runtimes[job.python]

    async def _execute(self, job: Job, runtime: Runtime | None = None) -> RunResult:
        limits = Limits(timeout_s=job.timeout_s, memory_mb=self.memory_mb)
        runtime = runtime or await self._runtime(job)
        launch = await asyncio.to_thread(self._prepare, job, limits, runtime)
        report = _Pipe(launch.report_fd, REPORT_CAP_BYTES)
        status = _Pipe(launch.status_fd, 64 * 1024) if launch.status_fd is not None else None
        try:
            started = time.perf_counter()
            with launch.child_side:
                proc = await _spawn(launch)

            async def sweep() -> None:
                if launch.uid is not None:  # e.g. a child in a session of its own
                    await asyncio.to_thread(kill_uid, launch.uid)

            outcome = await _supervise(proc, job.timeout_s, sweep)
            seconds = time.perf_counter() - started
            report_text = await report.text()
            if status is not None and '"child-pid"' not in await status.text():
                raise SandboxError(
                    f"local sandbox: bubblewrap could not start the sandbox: {outcome.stderr.strip()[-500:]}; "
                    f"{bwrap.start_hint(outcome.stderr)}"
                )
        finally:
            for pipe in (report, status):
                if pipe is not None:
                    pipe.close()
            # removing the cgroup and the workspace touches the file system: off the event loop
            await asyncio.to_thread(launch.cleanup.close)
        return RunResult(
            exit_code=outcome.exit_code,
            stdout=outcome.stdout,
            stderr=outcome.stderr,
            timed_out=outcome.timed_out,
            output_truncated=outcome.truncated,
            seconds=seconds,
            isolation=self.isolation,
            report=report_text if job.report else "",
        )

    def _prepare(self, job: Job, limits: Limits, runtime: Runtime) -> _Launch:
        """The job's command, descriptors, cgroup and (basic isolation) workspace."""
        stack, child_side = ExitStack(), _ChildSide()
        try:
            report_read, report_write = child_side.pipe(stack)
            env = {**_scrubbed_env(runtime, self.isolation), **job.env, REPORT_FD_ENV: str(report_write)}
            # A job that reports starts with no site at all (-S): no `.pth` of the environment (an
            # editable install's import finder) runs in the supervisor, nor in the test process
            # before the harness holds its key; the launcher adds the site then (SITE_ENV).
            if job.report and runtime.site:
                env[SITE_ENV] = "1"
            as_root = os.geteuid() == 0
            uid = job_uid() if self.isolation == "bwrap" or self._can_drop_root(runtime) else None
            own_processes = self.isolation == "bwrap" or uid is not None
            limited = [*limits.prlimit_argv(own_processes=own_processes), *(drop_argv(uid) if uid is not None else ())]
            run = job.argv([runtime.executable, *(() if runtime.site and not job.report else ("-S",))])
            interpreter_env = _interpreter_env(job) if job.command else None
            if interpreter_env is not None:
                env["PATH"] = f"{interpreter_env.bin_dir}:{env['PATH']}"
            # Any command (`make test`, `python -m unittest`) finds `python` and `python3` as the
            # job's interpreter, the host having maybe no `python` at all: a project's from its
            # virtualenv's bin/ (above; a link to it would lose the virtualenv, found beside the
            # name run), codeheal's own from links first on the PATH.
            python_link = runtime.executable if job.command and interpreter_env is None else None
            status_fd = archive = None
            if self.isolation == "bwrap":
                assert self._bwrap is not None
                status_read, status_write = child_side.pipe(stack)
                read_only = {name: child_side.memfd(job.files[name]) for name in job.read_only}
                archive = child_side.memfd(_archive(job))
                workdir = job.workdir or bwrap.WORKSPACE
                env["HOME"] = workdir
                if job.command and not job.report:
                    env["PYTHONPATH"] += f":{workdir}"
                expose = (interpreter_env.prefix,) if interpreter_env is not None else ()
                if python_link is not None:
                    env["PATH"] = f"{bwrap.PYTHON_BIN}:{env['PATH']}"
                argv = [*bwrap.bwrap_argv(self._bwrap, runtime=runtime, read_only=read_only, env=env,
                                          status_fd=status_write, disk_mb=limits.disk_mb, as_root=as_root,
                                          expose=expose, python_link=python_link, workdir=workdir),
                        *limited, *bwrap.unpack_argv(workdir), *run]
                cwd, outer_env = "/", {"PATH": env["PATH"]}
                status_fd = status_read
            else:
                cwd = _basic_workspace(job, uid, stack)
                if python_link is not None:
                    env["PATH"] = f"{_python_bin(python_link, stack)}{os.pathsep}{env['PATH']}"
                if job.command and not job.report:
                    env["PYTHONPATH"] += f"{os.pathsep}{cwd}"
                argv, outer_env = [*limited, *run], {**env, "HOME": cwd, "TMPDIR": cwd}
            group = job_group(limits.memory_mb, limits.processes)
            if group is not None:
                stack.callback(group.remove)
                argv = [*group.enter_argv(), *argv]
        except BaseException as exc:
            child_side.close()
            stack.close()
            if isinstance(exc, OSError):
                raise SandboxError(f"local sandbox: cannot prepare the job: {exc}") from exc
            raise
        return _Launch(argv=argv, env=outer_env, cwd=cwd, report_fd=report_read, status_fd=status_fd,
                       uid=uid, child_side=child_side, stdin=archive, cleanup=stack)

    def _can_drop_root(self, runtime: Runtime) -> bool:
        """Basic isolation runs the interpreter directly, so a job uid must be able to reach it;
        an interpreter under root's home is not, and the job then keeps root (without a
        process limit: one more reason to use bubblewrap)."""
        if os.geteuid() != 0:
            return False
        paths = (runtime.executable, *runtime.base_prefixes, *(p for _, p in runtime.packages))
        return all(readable_by_anyone(p) for p in paths)


class _ChildSide(ExitStack):
    """Descriptors the job inherits: closed in the host once the job has started."""

    def __init__(self) -> None:
        super().__init__()
        self.fds: list[int] = []

    def pipe(self, host: ExitStack) -> tuple[int, int]:
        """A pipe: the host's read end (closed with `host`) and the job's write end."""
        read, write = os.pipe()
        host.callback(os.close, read)
        self._keep(write)
        return read, write

    def memfd(self, content: str | bytes) -> int:
        """An in-memory file holding `content`, from which bubblewrap copies a workspace file."""
        fd = os.memfd_create("codeheal-file", os.MFD_CLOEXEC)
        self._keep(fd)
        data = content.encode("utf-8") if isinstance(content, str) else content
        while data:
            data = data[os.write(fd, data):]
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    def _keep(self, fd: int) -> None:
        self.callback(os.close, fd)
        self.fds.append(fd)


def _archive(job: Job) -> bytes:
    """A tar of the job's writable files and its empty folders (bubblewrap's workspace: the
    job's command unpacks it)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for name in sorted(job.folders):
            archive.addfile(_entry(name, tarfile.DIRTYPE, 0o777, 0))
        for name, content in job.files.items():
            if name not in job.read_only:
                data = content.encode("utf-8") if isinstance(content, str) else content
                archive.addfile(_entry(name, tarfile.REGTYPE, 0o666, len(data)), io.BytesIO(data))
    return buffer.getvalue()


def _entry(name: str, kind: bytes, mode: int, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size = kind, mode, size
    return info


def _basic_workspace(job: Job, uid: int | None, stack: ExitStack) -> str:
    """A fresh host folder holding the job's files (basic isolation), removed with `stack`;
    handed to the job uid (0711: bubblewrap, root without its capabilities, must still be able
    to enter it), except the `read_only` files (0444, not the job uid's: it cannot write them,
    though it can rename them in its folder; basic isolation is for code you trust)."""
    try:
        handle = tempfile.TemporaryDirectory(prefix="codeheal-")
    except OSError as exc:
        raise SandboxError(
            f"local sandbox: cannot create a workspace in {tempfile.gettempdir()}: {exc}; "
            "set TMPDIR to a writable folder"
        ) from exc
    stack.callback(handle.cleanup)
    workspace = Path(handle.name)
    files, read_only = job.files, job.read_only
    for name in job.folders:
        (workspace / name).mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        path = workspace / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    for name in read_only:
        (workspace / name).chmod(0o444)
    if uid is not None:
        kept = {workspace / name for name in read_only}
        for path in (workspace, *workspace.rglob("*")):
            if path not in kept:
                os.chown(path, uid, uid, follow_symlinks=False)
        workspace.chmod(0o711)
    return handle.name


class _Pipe:
    """The host's end of a pipe the job writes to, read as the data comes (so the job never
    blocks on a full pipe); the first `cap` bytes are kept."""

    def __init__(self, fd: int, cap: int) -> None:
        self._file = os.fdopen(os.dup(fd), "rb", buffering=0)
        self._cap = cap
        self._kept = bytearray()
        self._task = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), self._file)
        try:
            while chunk := await reader.read(65536):
                self._kept += chunk[: max(self._cap - len(self._kept), 0)]
        finally:
            transport.close()

    async def text(self) -> str:
        """What came, once the writers closed the pipe (or DRAIN_GRACE_S passed)."""
        await asyncio.wait({self._task}, timeout=DRAIN_GRACE_S)
        self.close()
        return self._kept.decode("utf-8", "replace")

    def close(self) -> None:
        """Stop reading (on the event loop that reads it); the pipe closes once the reader
        has let go of it."""
        self._task.cancel()
        self._task.add_done_callback(lambda _: self._file.close())


async def _spawn(launch: _Launch) -> asyncio.subprocess.Process:
    try:
        return await asyncio.create_subprocess_exec(
            *launch.argv,
            cwd=launch.cwd,
            env=launch.env,
            stdin=asyncio.subprocess.DEVNULL if launch.stdin is None else launch.stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            pass_fds=launch.child_side.fds,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxError(f"local sandbox: cannot start {launch.argv[0]}: {exc}") from exc
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


def _python_bin(interpreter: str, stack: ExitStack) -> str:
    """A folder (removed with `stack`) of `python` and `python3` links to `interpreter`, which
    any job uid can read: the basic sandbox's PYTHON_BIN."""
    folder = tempfile.mkdtemp(prefix="codeheal-bin-")
    stack.callback(shutil.rmtree, folder, ignore_errors=True)
    os.chmod(folder, 0o755)
    for name in bwrap.PYTHON_NAMES:
        os.symlink(interpreter, os.path.join(folder, name))
    return folder


@dataclass(frozen=True)
class _InterpreterEnv:
    bin_dir: str
    """The folder of the job's interpreter, as the user named it (a virtualenv's bin/)."""
    prefix: str
    """Its virtualenv (or installation), shown read-only to a command job."""


def _interpreter_env(job: Job) -> _InterpreterEnv | None:
    """Where a command job finds the project's tools: its interpreter's folder (a project
    virtualenv's bin/, with its console scripts and launchers). None for codeheal's own
    interpreter, whose virtualenv stays hidden."""
    if job.python is None:
        return None
    bin_dir = os.path.dirname(os.path.abspath(job.python))
    return _InterpreterEnv(bin_dir, os.path.dirname(bin_dir))


def _scrubbed_env(runtime: Runtime, isolation: Isolation) -> dict[str, str]:
    """No host secrets: only what Python needs to start, and pytest on the import path."""
    site = bwrap.SITE if isolation == "bwrap" else os.pathsep.join(runtime.site_dirs)
    return {
        "PATH": SANDBOX_PATH,
        "HOME": bwrap.WORKSPACE,
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "PYTHONNOUSERSITE": "1",  # HOME is the workspace: a project's own .local never runs at start
        "PYTHONPATH": site,
        "TMPDIR": "/tmp",
    }
