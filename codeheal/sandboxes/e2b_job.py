"""One Job inside a live E2B sandbox: a fresh workspace, the files, `python ...`, the results."""

from __future__ import annotations

import asyncio
import os
import shlex
import time
import uuid

from e2b import CommandExitException, NotFoundException
from e2b_code_interpreter import AsyncSandbox

from codeheal.sandboxes.base import OUTPUT_CAP_BYTES, REPORT_CAP_BYTES, REPORT_FD_ENV, Job, RunResult

WORKSPACES = "/home/user/codeheal"
PYTHON = "python3"
REQUEST_TIMEOUT_S = 30.0
"""Bound on each control request (write, start, read); the job's own deadline is separate."""
KILL_GRACE_S = 5.0
"""How long a killed job may take to report its end before codeheal stops listening."""
REPORTS = "/home/user/codeheal-reports"
"""Where a job's report channel is kept: outside its workspace, under a name it is not told."""
REPORT_FD = 3
ENSURE_PYTEST = (
    f"{PYTHON} -c 'import pytest' 2>/dev/null || {PYTHON} -m pip install --quiet --disable-pip-version-check pytest"
)


async def ensure_pytest(remote: AsyncSandbox) -> None:
    """Install pytest in a new sandbox whose template lacks it (raises on failure)."""
    await remote.commands.run(ENSURE_PYTEST, timeout=300, request_timeout=REQUEST_TIMEOUT_S)


async def run_job(remote: AsyncSandbox, job: Job) -> RunResult:
    """Run `job` in a new workspace of `remote`. Test failures, crashes and timeouts of the
    user's code are results; SDK exceptions (infrastructure faults) propagate."""
    workspace = f"{WORKSPACES}/{uuid.uuid4().hex}"
    report = f"{REPORTS}/{uuid.uuid4().hex}" if job.report else None
    await remote.files.write_files(
        [{"path": f"{workspace}/{name}", "data": content} for name, content in job.files.items()],
        request_timeout=REQUEST_TIMEOUT_S,
    )
    command = shlex.join(job.argv([PYTHON]))
    env = {**job.env, "PYTHONPATH": workspace} if job.command and not job.report else dict(job.env)
    if report:
        relative = os.path.relpath(report, workspace)  # the command runs in the workspace
        command = f"mkdir -p {shlex.quote(os.path.dirname(relative))} && exec {command} {REPORT_FD}>{shlex.quote(relative)}"
        env[REPORT_FD_ENV] = str(REPORT_FD)
    handle = await remote.commands.run(
        command,
        background=True,
        cwd=workspace,
        envs=env,
        # E2B's own limit is only a backstop: codeheal's deadline below fires first.
        timeout=job.timeout_s + KILL_GRACE_S + REQUEST_TIMEOUT_S,
        request_timeout=REQUEST_TIMEOUT_S,
    )
    started = time.perf_counter()
    waiter = asyncio.ensure_future(handle.wait())
    try:
        done, _ = await asyncio.wait({waiter}, timeout=job.timeout_s)
        timed_out = not done
        if timed_out:
            await handle.kill()
            await asyncio.wait({waiter}, timeout=KILL_GRACE_S)
        seconds = time.perf_counter() - started
        exit_code, stdout, stderr = _outcome(waiter, timed_out, handle.stdout, handle.stderr)
    finally:
        if not waiter.done():
            waiter.cancel()
            await handle.disconnect()
    out, out_cut = _tail(stdout)
    err, err_cut = _tail(stderr)
    return RunResult(
        exit_code=exit_code,
        stdout=out,
        stderr=err,
        timed_out=timed_out,
        output_truncated=out_cut or err_cut,
        seconds=seconds,
        isolation="e2b",
        report=await _read_report(remote, report) if report else "",
    )


def _outcome(waiter: asyncio.Future, timed_out: bool, stdout: str, stderr: str) -> tuple[int | None, str, str]:
    """Exit code and output: a non-zero exit is a result, any other exception is not."""
    if not waiter.done():
        return None, stdout, stderr
    exc = waiter.exception()
    if exc is None:
        result = waiter.result()
        return (None if timed_out else result.exit_code), result.stdout, result.stderr
    if isinstance(exc, CommandExitException):
        return (None if timed_out else exc.exit_code), exc.stdout, exc.stderr
    raise exc


def _tail(text: str) -> tuple[str, bool]:
    if len(text) <= OUTPUT_CAP_BYTES:
        return text, False
    return text[-OUTPUT_CAP_BYTES:], True


async def _read_report(remote: AsyncSandbox, path: str) -> str:
    """The job's report (its first REPORT_CAP_BYTES); "" when the job removed it."""
    try:
        text = await remote.files.read(path, request_timeout=REQUEST_TIMEOUT_S)
    except NotFoundException:
        return ""
    return text[:REPORT_CAP_BYTES]
