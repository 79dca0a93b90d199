"""The E2B sandbox: every job runs in a remote E2B sandbox of its own, created for it and
killed when it ends.

No state is shared between candidates: a candidate that plants a file anywhere in its
sandbox (a `usercustomize.py` in the user site, a `.pth`, a rewritten pytest) or leaves a
process behind to rewrite the next workspace reaches nothing of a later job, which starts
in a fresh VM. The price is one sandbox start (and pytest's check) per job instead of per
session. A session only groups jobs: closing it kills those of its sandboxes whose jobs are
still running. Besides the kill after every job, a sandbox is killed at interpreter exit for
jobs a crash left running (atexit), and by E2B itself when `Context.e2b.lifetime_s` runs out.

All SDK calls run on one private event loop thread: the SDK's async clients are bound to the
loop they were made on, and a sync `graph.invoke` would otherwise give every attempt a new
loop. `run` and `arun` are thin bridges to that loop, so both share one implementation.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx
from e2b import (
    AuthenticationException,
    ConnectionConfig,
    NotFoundException,
    RateLimitException,
    SandboxException,
    SandboxNotRunningException,
    ServiceBusyException,
    TimeoutException,
)
from e2b_code_interpreter import AsyncSandbox

from codeheal import environment
from codeheal.context import Context
from codeheal.errors import SandboxAuthError, SandboxError, SandboxUnavailableError
from codeheal.sandboxes.base import Job, RunResult, SyncFace
from codeheal.sandboxes.e2b_job import REQUEST_TIMEOUT_S, ensure_pytest, run_job

T = TypeVar("T")
KILL_TIMEOUT_S = 10.0
KEY_HINT = "create one at https://e2b.dev/dashboard and export E2B_API_KEY, or use the local sandbox"


class E2BSandbox(SyncFace):
    """Runs jobs in E2B sandboxes created from `template`, each living at most `lifetime_s`.
    The SDK's environment variables (E2B_API_KEY, E2B_DOMAIN, E2B_DEBUG, E2B_API_URL,
    E2B_SANDBOX_URL) configure where it connects."""

    isolation = "e2b"

    def __init__(self, *, template: str = "code-interpreter-v1", lifetime_s: int = 300) -> None:
        self.template = template
        self.lifetime_s = lifetime_s

    @classmethod
    def from_context(cls, context: Context) -> E2BSandbox:
        """The E2B sandbox a run's Context describes."""
        return cls(template=context.e2b.template, lifetime_s=context.e2b.lifetime_s)

    def check_available(self) -> None:
        """SandboxAuthError when there is no API key: asked before any model call."""
        _require_key()

    async def arun(self, job: Job) -> RunResult:
        return await _bridge().acall(self._run(job))

    async def aclose_session(self, session: str) -> None:
        """Kill the sandboxes of the session's jobs that are still running."""
        await _bridge().acall(_live.close(session))

    async def _run(self, job: Job) -> RunResult:
        remote = await self._create()
        _live.add(job.session, remote)
        try:
            return await run_job(remote, job)
        except Exception as exc:
            raise self._translate(exc, "run the tests") from exc
        finally:
            await _live.discard(job.session, remote)

    async def _create(self) -> AsyncSandbox:
        """A new remote sandbox, with pytest, for one job."""
        _require_key()
        try:
            remote = await AsyncSandbox.create(
                template=self.template, timeout=self.lifetime_s, request_timeout=REQUEST_TIMEOUT_S
            )
        except Exception as exc:
            raise self._translate(exc, f"create a sandbox from template {self.template!r}") from exc
        try:
            await ensure_pytest(remote)
        except BaseException as exc:
            await _kill(remote)
            if isinstance(exc, Exception):
                raise self._translate(exc, "install pytest in the sandbox") from exc
            raise
        return remote

    def _translate(self, exc: Exception, action: str) -> SandboxError:
        """A codeheal error naming E2B and the cause; transient ones are retried by the graph."""
        if isinstance(exc, SandboxError):
            return exc
        if isinstance(exc, AuthenticationException):
            return SandboxAuthError(f"E2B rejected the API key ({exc}): check E2B_API_KEY; {KEY_HINT}")
        if isinstance(exc, RateLimitException | ServiceBusyException):
            return SandboxUnavailableError(
                f"E2B is rate limiting or busy, could not {action} ({exc}); wait, or run fewer sandboxes at once"
            )
        if isinstance(exc, SandboxNotRunningException | NotFoundException):
            return SandboxUnavailableError(
                f"the E2B sandbox stopped while codeheal was using it (killed, or its lifetime of "
                f"{self.lifetime_s} s ran out; raise e2b_lifetime_s if test runs are long): {exc}"
            )
        if isinstance(exc, httpx.TransportError | OSError | TimeoutException):
            return SandboxUnavailableError(
                f"cannot reach E2B at {_endpoint()} to {action}: {exc or type(exc).__name__}; "
                "check the network and E2B_DOMAIN / E2B_SANDBOX_URL"
            )
        if isinstance(exc, SandboxException):
            return SandboxUnavailableError(f"E2B failed to {action}: {exc}")
        return SandboxError(f"E2B failed to {action}: {type(exc).__name__}: {exc}")


class _Live:
    """The remote sandboxes whose jobs are running, by session; touched only on the bridge's loop."""

    def __init__(self) -> None:
        self._remotes: dict[str | None, set[AsyncSandbox]] = {}

    def add(self, session: str | None, remote: AsyncSandbox) -> None:
        self._remotes.setdefault(session, set()).add(remote)

    async def discard(self, session: str | None, remote: AsyncSandbox) -> None:
        remotes = self._remotes.get(session, set())
        if remote in remotes:
            remotes.discard(remote)
            if not remotes:
                self._remotes.pop(session, None)
            await _kill(remote)

    async def close(self, session: str | None) -> None:
        remotes = self._remotes.pop(session, set())
        await asyncio.gather(*(_kill(remote) for remote in remotes))

    async def close_all(self) -> None:
        await asyncio.gather(*(self.close(session) for session in list(self._remotes)))


async def _kill(remote: AsyncSandbox) -> None:
    """Kill a remote sandbox, best effort: E2B's lifetime limit is the backstop."""
    try:
        await asyncio.wait_for(remote.kill(request_timeout=KILL_TIMEOUT_S), KILL_TIMEOUT_S)
    except Exception:
        pass


def _require_key() -> None:
    config = ConnectionConfig()
    if not config.debug and not config.api_key:
        raise SandboxAuthError(f"E2B_API_KEY is not set: {KEY_HINT}")


def _endpoint() -> str:
    config = ConnectionConfig()
    sandbox_url = environment.read(environment.E2B_SANDBOX_URL)
    return sandbox_url if config.debug and sandbox_url else config.api_url


class _Bridge:
    """A private event loop in a daemon thread, where every SDK call of codeheal runs."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, name="codeheal-e2b", daemon=True).start()

    async def acall(self, coro: Coroutine[Any, Any, T]) -> T:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self.loop))


_live = _Live()
_bridge_lock = threading.Lock()
_bridge_instance: _Bridge | None = None


def _bridge() -> _Bridge:
    global _bridge_instance
    with _bridge_lock:
        if _bridge_instance is None:
            _bridge_instance = _Bridge()
            atexit.register(_close_all_at_exit)
        return _bridge_instance


def _close_all_at_exit() -> None:
    if _bridge_instance is not None:
        future = asyncio.run_coroutine_threadsafe(_live.close_all(), _bridge_instance.loop)
        try:
            future.result(timeout=KILL_TIMEOUT_S + 5)
        except Exception:
            pass  # exiting anyway: E2B's lifetime limit ends what could not be killed
