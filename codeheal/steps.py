"""One implementation per node, a sync and an async face derived from it.

A node body is a generator: it yields the slow calls it needs (a model call, a sandbox job,
closing a sandbox session) and receives each one's result (or, where the call raised a
CodehealError, that error, raised at its `yield`: a body may catch it), then returns the state
update.
`run_steps` performs the calls blocking; `arun_steps` awaits them, and advances the body
itself in a worker thread so that its other work (building a model client may start the
local server; writing files) never blocks the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.runnables import Runnable, RunnableLambda

from codeheal.errors import CodehealError
from codeheal.prompting.model_call import ModelCall, ainvoke_model, invoke_model
from codeheal.sandboxes.base import Job, Sandbox, SessionSandbox, run_coroutine_sync

T = TypeVar("T")


@dataclass(frozen=True)
class SandboxRun:
    """Run `job` in `sandbox`; the body receives the RunResult."""

    sandbox: Sandbox
    job: Job


@dataclass(frozen=True)
class CloseSession:
    """Release what `sandbox` keeps for `session`; the body receives None."""

    sandbox: SessionSandbox
    session: str


Call = ModelCall | SandboxRun | CloseSession
Steps = Generator[Call, Any, T]


def run_steps(steps: Steps[T]) -> T:
    """Drive a body to its end, making each call it yields blocking."""
    result: Any = None
    error: CodehealError | None = None
    while True:
        try:
            call = steps.throw(error) if error is not None else steps.send(result)
        except StopIteration as done:
            return done.value
        try:
            result, error = _perform(call), None
        except CodehealError as exc:  # raised at the body's yield: the body may catch it
            result, error = None, exc


async def arun_steps(steps: Steps[T]) -> T:
    """Drive a body to its end, awaiting each call it yields."""
    result: Any = None
    error: CodehealError | None = None
    while True:
        finished, value = await asyncio.to_thread(_advance, steps, result, error)
        if finished:
            return value
        try:
            result, error = await _aperform(value), None
        except CodehealError as exc:  # raised at the body's yield: the body may catch it
            result, error = None, exc


def node(body: Callable[[Any], Steps[dict]], name: str) -> Runnable:
    """A graph node with both faces of `body` (a function of the state)."""

    def sync_face(state: Any) -> dict:
        return run_steps(body(state))

    async def async_face(state: Any) -> dict:
        return await arun_steps(body(state))

    return RunnableLambda(sync_face, afunc=async_face, name=name)


def _advance(steps: Steps[T], value: Any, error: CodehealError | None) -> tuple[bool, Any]:
    # StopIteration cannot cross a Future (asyncio refuses it): report the end as a flag.
    try:
        return False, steps.throw(error) if error is not None else steps.send(value)
    except StopIteration as done:
        return True, done.value


def _perform(call: Call) -> Any:
    if isinstance(call, ModelCall):
        return invoke_model(call)
    if isinstance(call, SandboxRun):
        return run_coroutine_sync(call.sandbox.arun(call.job))
    return run_coroutine_sync(call.sandbox.aclose_session(call.session))


async def _aperform(call: Call) -> Any:
    if isinstance(call, ModelCall):
        return await ainvoke_model(call)
    if isinstance(call, SandboxRun):
        return await call.sandbox.arun(call.job)
    return await call.sandbox.aclose_session(call.session)
