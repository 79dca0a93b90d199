"""Where candidates run: the local sandbox (default) or E2B."""

from __future__ import annotations

import functools

from codeheal.context import Context
from codeheal.sandboxes.base import Job, RunResult, Sandbox
from codeheal.sandboxes.local import Isolation, LocalSandbox

__all__ = ["Job", "LocalSandbox", "RunResult", "Sandbox", "check_available", "sandbox_for"]


def sandbox_for(context: Context) -> Sandbox:
    """The sandbox a Context names."""
    if context.sandbox == "e2b":
        from codeheal.sandboxes.e2b import E2BSandbox

        return E2BSandbox.from_context(context)
    return _local_sandbox(context.isolation)


def check_available(sandbox: Sandbox) -> None:
    """Raise what `sandbox` would raise at its first job when it cannot start at all (E2B
    without an API key: SandboxAuthError; bubblewrap missing: SandboxError), where it can tell
    cheaply (its `check_available`): a run asks at its start, before any model call."""
    check = getattr(sandbox, "check_available", None)
    if check is not None:
        check()


@functools.cache
def _local_sandbox(isolation: Isolation) -> LocalSandbox:
    return LocalSandbox(isolation=isolation)
