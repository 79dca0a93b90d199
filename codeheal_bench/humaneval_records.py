"""What the HumanEval benchmark records: one record per (condition, problem), with a record of
each attempt as the loop saw it."""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

Condition = Literal["one_shot", "resample", "raw_error", "self_heal", "sample_first", "adaptive", "hedged"]
"""A benchmark condition is a policy preset (Context.policy): what a user runs by naming it."""
CONDITIONS: tuple[Condition, ...] = (
    "one_shot", "resample", "raw_error", "self_heal", "sample_first", "adaptive", "hedged",
)
AttemptKind = Literal["passed", "failed", "no_code", "syntax", "timeout", "crash"]


class AttemptRecord(TypedDict):
    """One attempt as the loop saw it (visible tests only)."""

    attempt: int
    kind: AttemptKind
    summary: str
    signature: str
    """What failed, without timings: equal signatures mean the same error was repeated."""
    passed_count: int
    total: int
    tokens: int
    prompt_tokens: int
    completion_tokens: int
    seconds_model: float
    seconds_sandbox: float
    timings: NotRequired[dict[str, float]]
    """Of seconds_model: prompt tokens evaluated and reused from the server's cache, prompt
    and generation seconds (TIMINGS; zeros from a server that does not say)."""
    code_sha: str
    candidates_tested: int
    """Distinct new candidates tested for this attempt (1 for attempt 1)."""
    selection: NotRequired[dict | None]
    """How the attempt chose by generated inputs, when it did."""
    replies: NotRequired[list[str]]
    """The model's replies this attempt's candidates were extracted from, as the model wrote
    them (a prefill included); [] for code the condition did not write (shared attempt 1)."""


class ProblemRecord(TypedDict):
    """One problem under one condition."""

    condition: Condition
    task_id: str
    model: str
    run_max_attempts: int
    run_retry_samples: int
    context: dict
    """Every Context field the condition ran with."""
    visible_source: str
    visible_count: int
    status: str
    """The loop's verdict on the visible tests: "passed" or "failed"."""
    attempts: int
    hidden_passed: bool
    hidden_error: str | None
    hidden_by_attempt: list[bool]
    """Hidden verdict of the code the loop would have returned had it stopped after k attempts
    (index k-1), for k up to the condition's attempt cap. Scoring only."""
    first_attempt: Literal["own", "shared"]
    """"shared": attempt 1 is the one_shot run's code, re-evaluated (same prompt, temperature 0)."""
    tokens: int
    prompt_tokens: int
    completion_tokens: int
    seconds_model: float
    seconds_sandbox: float
    seconds_rest: float
    timings: NotRequired[dict[str, float]]
    """Its attempts' timings summed (AttemptRecord.timings)."""
    started_at: float
    finished_at: float
    attempt_log: list[AttemptRecord]
    reflections: list[str]
    code: str


TIMINGS = ("prompt_evaluated", "prompt_reused", "prompt_seconds", "generation_seconds")
"""The model's share of an attempt's time, as codeheal records it on each attempt."""
