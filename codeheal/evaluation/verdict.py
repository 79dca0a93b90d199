"""What the host checks in a run's evidence before it calls the run a pass.

The report channel is written by codeheal's supervisor alone (supervisor.py): its own record
(how the test process ended, how many lines the report plugin did not write) and the plugin's
authenticated evidence. From them the host requires that every expected test ran and passed
(a skip, an xfail or a missing result is not a pass), and, in the module form, compares the
values of each watched comparison itself, as plain data, so that no `__eq__` of the
candidate's decides, and requires each assert a passing test always runs to have reported."""

from __future__ import annotations

import decimal
import fractions
import json
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from codeheal.evaluation.checks import COMPARISONS, NO_LITERAL, WatchedAssert
from codeheal.state import CheckFailure


NO_RESULT = "did not run: no result for it (the run ended before it, or it was not collected)"


@dataclass(frozen=True)
class Report:
    """A run's report channel, parsed."""

    events: list[dict]
    """The report plugin's evidence, in order."""
    supervisor: dict | None
    """The supervisor's own record; None when it never wrote one (killed, or timed out)."""
    stray_lines: int = 0
    """Lines that are neither (a sandbox that let something else write to the channel)."""


@dataclass
class _Plain:
    """A decoded value, or why there is none."""

    value: Any = None
    object_type: str | None = None
    """Not plain data: the name of its type."""
    too_big: bool = False


@dataclass
class _Tally:
    values: dict[tuple[str, int], list[list[_Plain]]] = field(default_factory=lambda: defaultdict(lambda: [[], []]))
    reached: set[tuple[str, int]] = field(default_factory=set)


def parse_report(text: str) -> Report:
    """The supervisor's record and the evidence before it; anything after it is ignored."""
    events: list[dict] = []
    stray = 0
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            stray += 1  # or a line cut by a kill mid-write
            continue
        if isinstance(record, dict) and isinstance(record.get("supervisor"), dict):
            return Report(events, record["supervisor"], stray)
        if isinstance(record, dict) and isinstance(record.get("evidence"), dict):
            events.append(record["evidence"])
        else:
            stray += 1
    return Report(events, None, stray)


def test_path(nodeid: str) -> str:
    """`test_solution.py::TestX::test_y[1]` -> `TestX::test_y`: a test as the tests name it."""
    return "::".join(nodeid.split("::")[1:]).split("[")[0]


def unrun_failures(events: list[dict], expected: Collection[str], *, by: str = "top") -> list[CheckFailure]:
    """A failure for each expected test that did not run and pass: skipped, xfail, or without
    a result. `by` "top": `expected` are the tests' top-level names (module form), each must
    have run; "id": `expected` are node ids (project form: those the project as it is ran)."""
    results = [e for e in events if e.get("event") == "result" and isinstance(e.get("test"), str)]
    key = (lambda nodeid: test_path(nodeid).split("::")[0]) if by == "top" else (lambda nodeid: nodeid)
    found: dict[str, list[dict]] = defaultdict(list)
    for event in results:
        found[key(event["test"])].append(event)
    failures = []
    for name in sorted(expected):
        own = found.get(name, [])
        skipped = [e for e in own if e.get("outcome") == "skipped" or e.get("xfail")]
        label = name.split("::")[-1] if by == "id" else name
        if skipped:
            reason = skipped[0].get("reason") or ""
            what = "marked xfail" if skipped[0].get("xfail") else "skipped"
            failures.append(_failure(label, "NotRun", f"did not run: {what}{f' ({reason})' if reason else ''}; "
                                     "a test that does not run is not a pass"))
        elif not any(e.get("when") == "call" for e in own) and not any(e.get("outcome") == "failed" for e in own):
            failures.append(_failure(label, "NotRun", NO_RESULT))
    return failures


def watched_failures(events: list[dict], watched: Sequence[WatchedAssert]) -> list[CheckFailure]:
    """Failures the host finds in tests the report says passed: a watched comparison whose
    values, compared here as plain data, disagree (or whose computed side is not plain data
    against a plain other side), and an assert such a test always runs that never reported."""
    by_index = {check.index: check for check in watched}
    passed = {e["test"] for e in events if e.get("event") == "result" and e.get("when") == "call"
              and e.get("outcome") == "passed" and isinstance(e.get("test"), str)}
    tally = _tally(events, by_index)
    failures: dict[str, CheckFailure] = {}
    for nodeid in sorted(passed):
        name = nodeid.split("::")[-1]
        for check in watched:
            if check.test != test_path(nodeid):
                continue
            pairs = tally.values.get((nodeid, check.index), [[], []])
            ran = (nodeid, check.index) in tally.reached if check.op is None else bool(pairs[0] and pairs[1])
            if check.required and not ran:
                failures.setdefault(nodeid, _failure(
                    name, "NotRun", f"the assert on tests.py line {check.line} never ran, yet the test was "
                    "reported passed"))
        for (test, index), (lefts, rights) in tally.values.items():
            if test != nodeid:
                continue
            check = by_index[index]
            for left, right in zip(lefts, rights):
                problem = _disagreement(check, _side(check, 0, left), _side(check, 1, right))
                if problem:
                    failures.setdefault(nodeid, _failure(name, *problem))
    return list(failures.values())


def _tally(events: list[dict], by_index: dict[int, WatchedAssert]) -> _Tally:
    tally = _Tally()
    for event in events:
        index, test = event.get("check"), event.get("test")
        if not isinstance(test, str) or index not in by_index:
            continue
        if event.get("event") == "reached":
            tally.reached.add((test, index))
        elif event.get("event") == "value" and event.get("side") in (0, 1):
            tally.values[(test, index)][event["side"]].append(_decoded(event))
    return tally


def _side(check: WatchedAssert, side: int, recorded: _Plain) -> _Plain:
    """The host's own value for a side the tests write out; else what was recorded."""
    literal = check.literals[side]
    return recorded if literal is NO_LITERAL else _Plain(value=literal)


def _disagreement(check: WatchedAssert, left: _Plain, right: _Plain) -> tuple[str, str] | None:
    """(exception, message) when the host cannot agree that `left op right` holds."""
    # The computed value is the left one, unless only the left side is written out.
    actual, other = (right, left) if check.literals[0] is not NO_LITERAL and check.literals[1] is NO_LITERAL else (left, right)
    if actual.object_type is not None and other.object_type is None and not other.too_big:
        return ("NotPlainValue", f"tests.py line {check.line}: the value compared is a {actual.object_type}, "
                "not plain data; codeheal compares results as plain values (int, float, str, list, tuple, dict, "
                "set, None, ...), never with a class's own __eq__: return plain values")
    if left.object_type is not None or right.object_type is not None or left.too_big or right.too_big:
        return None  # two objects of the tests' own making, or too big to send: pytest's word stands
    assert check.op is not None
    try:
        holds = bool(COMPARISONS[check.op](left.value, right.value))
    except TypeError as exc:
        holds, detail = False, f" ({exc})"
    else:
        detail = ""
    if holds:
        return None
    return ("ValueMismatch", f"tests.py line {check.line}: {_short(left.value)} {check.op} {_short(right.value)} "
            f"does not hold{detail}, yet the test was reported passed")


def _decoded(event: dict) -> _Plain:
    if "plain" in event:
        try:
            return _Plain(value=_decode(event["plain"]))
        except (ValueError, TypeError, KeyError, IndexError, ArithmeticError, RecursionError):
            return _Plain(object_type="unreadable value")
    if "big" in event:
        return _Plain(too_big=True)
    return _Plain(object_type=str(event.get("object", "object"))[:100])


_SCALARS = {
    "int": int, "float": float, "complex": complex, "str": str,
    "Decimal": decimal.Decimal, "Fraction": fractions.Fraction,
}
_COLLECTIONS = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}


def _decode(encoded: list) -> Any:
    """The value the report plugin encoded as tagged plain data (pytest_plugin._plain)."""
    kind, data = encoded
    if kind == "None":
        return None
    if kind == "bool":
        return bool(data)
    if kind in _SCALARS:
        return _SCALARS[kind](data)
    if kind == "bytes":
        return bytes.fromhex(data)
    if kind == "dict":
        return {_decode(k): _decode(v) for k, v in data}
    return _COLLECTIONS[kind](_decode(item) for item in data)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _failure(test: str, exception: str, message: str) -> CheckFailure:
    return CheckFailure(test=test, exception=exception, message=message, line=None, frames=[],
                        expected=None, actual=None)
