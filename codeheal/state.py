"""Graph state: what goes in, what comes out, and what the nodes keep in between."""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

from typing_extensions import TypedDict  # pydantic (Studio's schemas) needs it on Python < 3.12

Status = Literal["running", "passed", "failed", "accepted", "stuck", "budget"]
"""Status "accepted": the tests did not all pass, but a human reviewer accepted the best
attempt. "stuck": a fresh start failed the same way as the two attempts before it. "budget":
the run's token budget (Context.max_tokens) could not pay for the next model call."""


class Frame(TypedDict):
    """One traceback frame that belongs to the candidate or the tests."""

    file: str
    line: int
    function: str
    source: str


class CheckFailure(TypedDict):
    """One failed check: a test function or a plain top-level assert."""

    test: str
    exception: str
    message: str
    line: int | None
    """Line in solution.py closest to the failure, when the traceback reaches it."""
    frames: list[Frame]
    expected: str | None
    actual: str | None


class Feedback(TypedDict):
    """The structured outcome of evaluating one candidate."""

    passed: bool
    total: int
    passed_count: int
    failures: list[CheckFailure]
    error: str | None
    """A problem with the whole attempt (no code, syntax error, import crash, timeout)."""
    stdout: str
    stderr: str
    output_truncated: bool
    timed_out: bool
    seconds: float
    """Sandbox wall time; for an attempt of several candidates, all of them together."""
    isolation: str
    lint: NotRequired[list[str]]
    """Static findings on a failed candidate (undefined names, ...): notes, never the verdict."""


class Usage(TypedDict):
    """What one or more model calls cost."""

    tokens: int
    """prompt_tokens + completion_tokens."""
    prompt_tokens: int
    completion_tokens: int
    seconds: float


class Attempt(TypedDict):
    """One entry of `history`: an attempt from generation to reflection."""

    attempt: int
    code: str
    candidates_tested: NotRequired[int]
    """How many new candidates were tested for this attempt (testing stops at the first
    that passes); `code` is the best of them."""
    fresh_start: NotRequired[bool]
    """Written from the first attempt's prompt because the run was stuck."""
    summary: str
    passed_count: int
    total: int
    reflection: str | None
    tokens: int
    """Model tokens of the attempt: writing its candidates and reflecting on it."""
    prompt_tokens: NotRequired[int]
    completion_tokens: NotRequired[int]
    seconds: float


class RunInput(TypedDict):
    """What one run is asked to do. Kept on a thread only until the run ends."""

    task: str
    tests: str
    entry_point: NotRequired[str | None]
    starting_code: NotRequired[str | None]
    """Code to test (and heal) before any model call, e.g. a user's failing draft."""


class InputState(RunInput):
    reflections: NotRequired[list[str]]
    """Lessons to start from, e.g. a parent agent's memory; the output returns them with
    this run's lessons appended."""


class OutputState(TypedDict):
    code: str
    """The best attempt: the one that passed the most checks."""
    status: Status
    attempts: int
    reflections: list[str]
    history: list[Attempt]


class ThreadMemory(TypedDict):
    """What a thread keeps from run to run."""

    reflections: Annotated[list[str], operator.add]
    """The reflection memory: appended across attempts and across runs of a thread."""


class RunScratch(TypedDict, total=False):
    """Working fields of the run in progress; `prepare` resets them at the start of each run."""

    candidates: list[str]
    """The code the evaluator tests next: the starting code, or what the actor wrote (one
    candidate on attempt 1, Context.retry_samples on later attempts)."""
    generation: Usage
    """What writing the latest candidates cost, all samples together."""
    fresh_start: bool
    """The latest candidates were written from the first attempt's prompt."""
    stop_reason: Literal["budget"] | None
    """Set by a node that could not afford its model call: the run finishes."""
    feedback: Feedback | None
    """The evaluation of the latest attempt."""
    attempt_limit: int | None
    """Attempts this run may use when a human reviewer granted more; None: Context.max_attempts."""
    sandbox_session: str | None
    """Key under which this run's attempts share one sandbox (E2B); never the sandbox handle."""


class RunOutcome(TypedDict, total=False):
    """The run's result as it builds up; `finish` writes the final status and code."""

    code: str
    status: Status
    attempts: int
    history: list[Attempt]


class State(RunInput, ThreadMemory, RunScratch, RunOutcome):
    """Everything the nodes share: the run's input, the thread's memory, the run's scratch
    fields and its outcome."""
