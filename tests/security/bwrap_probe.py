"""Whether the default (bubblewrap) sandbox works on this machine, asked once per test run.
(A module of its own: `from conftest import ...` resolves to whichever conftest pytest
imported first, which breaks when several test folders are collected together.)"""

from __future__ import annotations

from functools import cache

from codeheal.errors import SandboxError
from codeheal.sandboxes import Job, LocalSandbox


@cache
def bwrap_usable() -> bool:
    """Whether the default (bubblewrap) sandbox can run a job here."""
    try:
        LocalSandbox().run(Job(files={}, python_args=("-c", "pass"), timeout_s=30))
    except SandboxError:
        return False
    return True
