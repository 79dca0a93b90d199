"""A pytest plugin copied into each sandbox workspace. It writes one JSON line per event, as
evidence, to the pipe of codeheal's supervisor (a descriptor named by CODEHEAL_REPORT_FD,
taken out of the environment before the candidate is imported) as the run goes, so a run
killed at its deadline still says which checks finished and which one hung. Each line is
authenticated with the key the supervisor handed over on CODEHEAL_KEY_FD (read and closed
here, before the candidate is imported). The module form's tests call `value` and `reached`
(checks.py puts them in): the values its comparisons saw, as plain data for the host to
compare, and the asserts a test reached. Only the user's tests are collected: functions and
classes of the candidate are not, whatever their names. Standard library and pytest only: it
runs inside the sandbox."""

import builtins
import hashlib
import hmac
import json
import os

import pytest
from codeheal_plain import NotPlain, plain

WORKSPACE = os.getcwd() + os.sep
"""Frames are kept for files under the workspace (where the job starts), by relative path:
the candidate and the tests, or a project's modules and tests; never the plugin's own."""
EXPLANATION_LINES = 6
CANDIDATE_MODULE = "solution"
MAC_CHARS = 32
RECORDER_PREFIX = "_codeheal_"
"""The names the module form's tests call `value` and `reached` by (checks.py)."""
VALUE_CHARS = 64 * 1024
"""A value whose plain form is longer than this is recorded as "big": not compared by the host."""
RECORDS_PER_ASSERT = 200
"""Values kept per assert and test (an assert in a loop); later ones are not recorded."""
_BUILTINS = {name: obj for name, obj in vars(builtins).items() if not name.startswith("_")}
"""The builtins as they were before the candidate was imported (it may patch them)."""
_comparison = {}
_current = {"test": None}
_recorded = {}


def _channel():
    """The supervisor's evidence pipe and the key its lines are signed with. A launcher
    between the supervisor and pytest (hatch, tox) may close the descriptors or drop the
    variables: then nothing is reported, and the host reads the run's output instead (a
    direct pytest run without evidence is never a pass)."""
    try:
        report = os.fdopen(int(os.environ.pop("CODEHEAL_REPORT_FD")), "wb")
        with os.fdopen(int(os.environ.pop("CODEHEAL_KEY_FD")), "rb") as key_pipe:
            return report, key_pipe.read()
    except (KeyError, ValueError, OSError):
        return None, b""


_report, _key = _channel()


def _emit(record):
    if _report is None:
        return
    payload = json.dumps(record).encode()
    tag = hmac.new(_key, payload, hashlib.sha256).hexdigest()[:MAC_CHARS].encode()
    _report.write(tag + b" " + payload + b"\n")
    _report.flush()


def test_names(candidate):
    """The names the module form's tests see: the candidate's (its _private ones too, not
    those of builtins), then the builtins as they were before it was imported, then the
    recorders."""
    names = {name: obj for name, obj in vars(candidate).items()
             if not name.startswith(("__", RECORDER_PREFIX)) and name not in _BUILTINS}
    return {**names, **_BUILTINS, RECORDER_PREFIX + "value_": value, RECORDER_PREFIX + "reached_": reached}


def value(check, side, obj):
    """Record `obj`, one side of the module form's assert `check`, as plain data (or the name
    of its type when it is not plain data); returns `obj` unchanged."""
    key = (_current["test"], check, side)
    count = _recorded[key] = _recorded.get(key, 0) + 1
    if count <= RECORDS_PER_ASSERT:
        try:
            encoded = {"plain": plain(obj)}
            if len(json.dumps(encoded)) > VALUE_CHARS:
                encoded = {"big": type(obj).__name__}
        except NotPlain as exc:
            encoded = {"object": str(exc)}
        except (RecursionError, ValueError):
            encoded = {"big": type(obj).__name__}
        _emit({"event": "value", "test": _current["test"], "check": check, "side": side, **encoded})
    return obj


def reached(check):
    """Record that the module form's assert `check` was reached in the current test."""
    key = (_current["test"], check, "reached")
    if key not in _recorded:
        _recorded[key] = 1
        _emit({"event": "reached", "test": _current["test"], "check": check})


def _frames(excinfo):
    frames = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        if not path.startswith(WORKSPACE) or path == __file__:
            continue
        name = path[len(WORKSPACE):]
        try:
            source = str(entry.statement).strip()
        except Exception:
            source = ""
        frames.append({"file": name, "line": entry.lineno + 1, "function": entry.name, "source": source})
    return frames


def _describe(excinfo):
    message = str(excinfo.value)
    if excinfo.typename == "FixtureLookupError":  # its str() is a tuple of internals
        message = getattr(excinfo.value, "msg", None) or f"fixture {getattr(excinfo.value, 'argname', '?')!r} not found"
    if isinstance(excinfo.value, AssertionError):
        # the assert and pytest's "+  where" lines: what each side was computed from
        lines = message.split("\n")
        kept = [lines[0]] + [line for line in lines[1:] if line.lstrip().split()[:2] in (["+", "where"], ["+", "and"])
                             and RECORDER_PREFIX not in line]
        message = "\n".join(kept[:EXPLANATION_LINES]) if message else "assert failed"
    return {"exception": excinfo.typename, "message": message[:2000], "frames": _frames(excinfo)}


def pytest_sessionstart(session):
    _emit({"event": "start"})


def pytest_collection_finish(session):
    _emit({"event": "collected", "tests": [item.nodeid for item in session.items]})


def pytest_runtest_logstart(nodeid, location):
    _comparison.clear()
    _current["test"] = nodeid
    _emit({"event": "begin", "test": nodeid})


def pytest_assertrepr_compare(config, op, left, right):
    _comparison.update(op=op, actual=_short_repr(left), expected=_short_repr(right))
    return None


def _short_repr(value):
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<repr failed: {exc!r}>"
    return text if len(text) <= 500 else text[:500] + "..."


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or report.failed or report.skipped:
        record = {"event": "result", "test": item.nodeid, "name": item.name, "when": report.when,
                  "outcome": report.outcome}
        if hasattr(report, "wasxfail"):
            record["xfail"] = True
        if report.skipped and isinstance(report.longrepr, tuple):
            record["reason"] = str(report.longrepr[2]).removeprefix("Skipped: ")[:500]
        if report.failed and call.excinfo is not None:
            record.update(_describe(call.excinfo))
            params = getattr(getattr(item, "callspec", None), "params", None)
            if params:
                record["inputs"] = {name: _short_repr(value) for name, value in params.items()}
            if _comparison.get("op") == "==":
                record.update(expected=_comparison["expected"], actual=_comparison["actual"])
        _emit(record)


def pytest_pycollect_makeitem(collector, name, obj):
    if getattr(obj, "__module__", None) == CANDIDATE_MODULE:
        return []  # the candidate's own test_* function is code under test, not a test
    return None


def pytest_exception_interact(node, call, report):
    if isinstance(node, pytest.Item) or call.excinfo is None:
        return
    record = {"event": "collect_error", "test": node.nodeid or node.name}
    record.update(_describe(call.excinfo))
    _emit(record)


def pytest_sessionfinish(session, exitstatus):
    _emit({"event": "finish", "exitstatus": int(exitstatus), "collected": session.testscollected})
