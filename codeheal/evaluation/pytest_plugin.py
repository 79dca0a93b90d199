"""A pytest plugin copied into each sandbox workspace. It writes one JSON line per event to
the report channel the host opened (a descriptor named by CODEHEAL_REPORT_FD, taken out of
the environment before the candidate is imported) as the run goes, so a run killed at its
deadline still says which checks finished and which one hung. Only the user's tests are
collected: functions and classes of the candidate are not, whatever their names. Standard
library and pytest only: it runs inside the sandbox."""

import json
import os

import pytest

WORKSPACE = os.getcwd() + os.sep
"""Frames are kept for files under the workspace (where the job starts), by relative path:
the candidate and the tests, or a project's modules and tests; never the plugin's own."""
EXPLANATION_LINES = 6
CANDIDATE_MODULE = "solution"
_comparison = {}


def _channel():
    # A launcher between the sandbox and pytest (hatch, tox) may close the descriptor or drop
    # the variable: then nothing is reported, and the host reads the run's output instead.
    try:
        return os.fdopen(int(os.environ.pop("CODEHEAL_REPORT_FD")), "w", encoding="utf-8", buffering=1)
    except (KeyError, ValueError, OSError):
        return None


_report = _channel()


def _emit(record):
    if _report is not None:
        _report.write(json.dumps(record) + "\n")


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
    if isinstance(excinfo.value, AssertionError):
        # the assert and pytest's "+  where" lines: what each side was computed from
        lines = message.split("\n")
        kept = [lines[0]] + [line for line in lines[1:] if line.lstrip().split()[:2] in (["+", "where"], ["+", "and"])]
        message = "\n".join(kept[:EXPLANATION_LINES]) if message else "assert failed"
    return {"exception": excinfo.typename, "message": message[:2000], "frames": _frames(excinfo)}


def pytest_sessionstart(session):
    _emit({"event": "start"})


def pytest_runtest_logstart(nodeid, location):
    _comparison.clear()
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
