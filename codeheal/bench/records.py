"""Per-problem benchmark records: one JSON line per (condition, problem), appended as results
arrive, so an interrupted run resumes where it stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal, NotRequired, TypedDict, get_args

from codeheal.context import PolicyName
from codeheal.errors import ConfigError
from codeheal.llm.weights import lasting_name
from codeheal.state import Selection


class RecordsLastingModel:
    """A benchmark config (a frozen dataclass with a `model` field) whose model is held under
    the name that stays with it (llm.weights.lasting_name): a record names the model, not the
    alias, so a resume never pairs records of one model with another."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "model", lasting_name(self.model))  # type: ignore[attr-defined]

Condition = PolicyName
"""A benchmark condition is a policy preset (Context.policy): what a user runs by naming it."""
CONDITIONS: tuple[Condition, ...] = get_args(PolicyName)
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
    code_sha: str
    candidates_tested: int
    """Distinct new candidates tested for this attempt (1 for attempt 1)."""
    selection: NotRequired[Selection | None]
    """How the attempt chose by generated checks, when it did."""
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
    started_at: float
    finished_at: float
    attempt_log: list[AttemptRecord]
    reflections: list[str]
    code: str


def read_records(path: Path, contexts: dict[Condition, dict]) -> dict[tuple[str, str], ProblemRecord]:
    """The finished records in `path` by (condition, task_id). Refuses a record whose
    condition ran with any other Context than `contexts` gives it: mixing settings would
    make the results meaningless."""
    records: dict[tuple[str, str], ProblemRecord] = {}
    if not path.exists():
        return records
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue  # the last line of a run killed mid-write
        wanted = contexts[record["condition"]]
        written = record.get("context", {})
        if written != wanted:
            differences = sorted(k for k in wanted.keys() | written.keys() if written.get(k) != wanted.get(k))
            shown = ", ".join(f"{k} {written.get(k, '(unrecorded)')!r} (now {wanted.get(k)!r})" for k in differences)
            raise ConfigError(
                f"{path} line {number} ({record['condition']}) was written with other settings: {shown}; "
                "pass --out with another directory, or delete the file to start over"
            )
        records[(record["condition"], record["task_id"])] = record
    return records


def append_record(path: Path, record: ProblemRecord) -> None:
    """Append one record as a single line, flushed at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
        out.flush()
