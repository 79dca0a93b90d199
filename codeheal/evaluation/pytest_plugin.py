"""A pytest plugin copied into each sandbox workspace. It writes one JSON line per event, as
evidence, to the pipe of codeheal's supervisor (a descriptor named by CODEHEAL_REPORT_FD,
taken out of the environment before the candidate is imported) as the run goes, so a run
killed at its deadline still says which checks finished and which one hung. Each line is
authenticated with the key the supervisor handed over on CODEHEAL_KEY_FD (read and closed
here, before the candidate is imported). The module form's tests call `value` and `reached`
(checks.py puts them in): the values its comparisons saw, as plain data for the host to
compare, and the asserts a test reached. Only the user's tests are collected: functions and
classes of the candidate are not, whatever their names. With CODEHEAL_COVERAGE set (the
project form's run of the project as it is) it also records which lines of the workspace's
modules each test executed (sys.monitoring on 3.12+, else sys.settrace), as advisory evidence
the host ranks suspicious lines by; the verdict never reads it. Standard library and pytest
only: it runs inside the sandbox."""

import builtins
import hashlib
import hmac
import json
import os
import sys
import threading
import time

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
COVERAGE_ENV = "CODEHEAL_COVERAGE"
COVERAGE_BYTES = 1024 * 1024
"""Coverage evidence sent at most (the supervisor passes on 3 MB in all): later tests' is dropped."""
FLUSH_SECONDS = 0.5
"""A running test's new lines are sent this often, so a test killed at the deadline has its coverage."""
OWN_FILES = frozenset({__file__, os.path.join(os.getcwd(), "codeheal_plain.py"),
                       os.path.join(os.getcwd(), "codeheal_supervisor.py")})
_comparison = {}
_current = {"test": None}
_recorded = {}
_emit_lock = threading.Lock()


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
    with _emit_lock:  # the coverage flusher writes from its own thread
        _report.write(tag + b" " + payload + b"\n")
        _report.flush()
    return len(payload)


class _Coverage:
    """The lines of workspace modules the current test executed, each sent once per test:
    appended by the tracer (list.append is atomic), sent by the test's end and, while it
    runs, every FLUSH_SECONDS by a daemon thread."""

    def __init__(self):
        self.lines = []
        self.sent = 0
        self.test = None
        self.budget = COVERAGE_BYTES
        self.lock = threading.Lock()
        self.rearm = lambda: None
        """Makes every line count again (set by _start_tracing)."""
        self._paths = {}

    def relative(self, filename):
        """A code object's file as a workspace path; "" for a file outside the workspace or
        one of codeheal's own."""
        known = self._paths.get(filename)
        if known is None:
            path = os.path.abspath(filename)
            known = path[len(WORKSPACE):] if path.startswith(WORKSPACE) and path not in OWN_FILES else ""
            self._paths[filename] = known
        return known

    def begin(self, test):
        with self.lock:
            self.lines, self.sent, self.test = [], 0, test
        self.rearm()

    def flush(self):
        with self.lock:
            end = len(self.lines)
            if self.test is None or end == self.sent or self.budget <= 0:
                return
            by_file = {}
            for path, line in self.lines[self.sent:end]:
                by_file.setdefault(path, []).append(line)
            self.sent = end
            self.budget -= _emit({"event": "coverage", "test": self.test, "lines": by_file}) or 0

    def end(self):
        self.flush()
        with self.lock:
            self.test = None

    def watch(self):
        while True:
            time.sleep(FLUSH_SECONDS)
            self.flush()


def _start_tracing(coverage):
    """Record each line of the workspace's modules once per test: sys.monitoring where the
    interpreter has it (a line event disabled once seen, re-armed at each test), else a
    sys.settrace tracer that traces only frames of those modules."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        tool = next((t for t in range(monitoring.COVERAGE_ID, 6) if monitoring.get_tool(t) is None), None)
        if tool is None:
            return lambda: None  # every tool id is taken (another coverage tool): no coverage
        monitoring.use_tool_id(tool, "codeheal")

        def started(code, offset):
            if coverage.relative(code.co_filename):
                monitoring.set_local_events(tool, code, monitoring.events.LINE)
            return monitoring.DISABLE

        def line(code, number):
            coverage.lines.append((coverage.relative(code.co_filename), number))
            return monitoring.DISABLE

        monitoring.register_callback(tool, monitoring.events.PY_START, started)
        monitoring.register_callback(tool, monitoring.events.LINE, line)
        monitoring.set_events(tool, monitoring.events.PY_START)
        return monitoring.restart_events

    seen = set()

    def local(frame, event, arg):
        if event == "line":
            key = (coverage.relative(frame.f_code.co_filename), frame.f_lineno)
            if key not in seen:
                seen.add(key)
                coverage.lines.append(key)
        return local

    def calls(frame, event, arg):
        return local if coverage.relative(frame.f_code.co_filename) else None

    sys.settrace(calls)
    threading.settrace(calls)
    return seen.clear


_coverage = _Coverage() if os.environ.pop(COVERAGE_ENV, None) and _report is not None else None
if _coverage is not None:
    _coverage.rearm = _start_tracing(_coverage)
    threading.Thread(target=_coverage.watch, daemon=True).start()


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
    if _coverage is not None:
        _coverage.begin(nodeid)


def pytest_runtest_logfinish(nodeid, location):
    if _coverage is not None:
        _coverage.end()


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
