"""A pytest plugin copied into each sandbox workspace (as codeheal_report.py). It writes one
JSON line per event, as evidence, to the pipe of codeheal's supervisor (a descriptor named by
CODEHEAL_REPORT_FD), as the run goes, so a run killed at its deadline still says which checks
finished and which one hung. Each line is authenticated with the key the supervisor handed
over on CODEHEAL_KEY_FD.

Bound before anything of the project or the candidate is imported (this module is imported,
and registered with pytest, by codeheal_pytest.py before pytest reads any configuration):
the report descriptor and the key (read and closed, both variables taken out of the
environment), and every primitive the report is written with: `os.write`, a C SHA-256
(the HMAC is computed here), a serializer of this module's own over the C string encoder of
`_json`, and the builtins those use, all held in closures. Patching `json`, `hmac`,
`hashlib`, `os` or `builtins` later changes nothing that is reported. Once pytest's session
finishes, the descriptor is closed: nothing written at exit (atexit, a finalizer) is evidence.

The evidence per test id: the collected ids (with those whose body this plugin watches), a
result per id (subtests, unittest's `subTest` and pytest's `subtests`, counted under their
test: failed ones each, passed ones as a count), and "ended" when a test function's body
returned normally, sent from a wrapper put around the function just before pytest calls it.
A runner patched not to call the test, an exit or a jump out of the body leaves no "ended".

In the module form's run with the candidate in a process of its own, what did not cross
faithfully between the tests and that process during a test (codeheal_proxy) is sent as
"unfaithful" for it: the host judges that test again with the candidate in the test process.

The module form's tests call `value` (checks.py puts the calls in): the value each assert
saw (both sides of a comparison, the tested value of any other assert), as plain data for
the host to check. Only the user's tests are collected: functions and classes of the
candidate are not, whatever their names. With CODEHEAL_COVERAGE set (the project form's run
of the project as it is) it also records which lines of the workspace's modules each test
executed (sys.monitoring on 3.12+, else sys.settrace), as advisory evidence the host ranks
suspicious lines by; the verdict never reads it. Each test's duration is sent, and a test
that runs past a time limit of its own stops the run (clock.py, as codeheal_clock). Standard
library and pytest only."""

import _json
import builtins
import functools
import inspect
import operator
import os
import sys
import threading
import time
import unittest

import codeheal_clock
import pytest
from codeheal_plain import NotPlain, plain
from codeheal_proxy import running, unfaithful

try:
    from _hashlib import openssl_sha256 as _SHA256
except ImportError:  # an interpreter without OpenSSL
    try:
        from _sha2 import sha256 as _SHA256
    except ImportError:
        from _sha256 import sha256 as _SHA256

WORKSPACE = os.getcwd() + os.sep
"""Frames are kept for files under the workspace (where the job starts), by relative path:
the candidate and the tests, or a project's modules and tests; never the plugin's own."""
EXPLANATION_LINES = 6
CANDIDATE_MODULE = "solution"
MAC_CHARS = 32
RECORDER_PREFIX = "_codeheal_"
"""The name prefix of what the module form's tests call (`value`, by checks.py)."""
VALUE_CHARS = 64 * 1024
"""A value whose plain form is longer than this is recorded as "big": not compared by the host."""
RECORDS_PER_ASSERT = 200
"""Values sent whole per assert and test (an assert in a loop); every later one is still checked
here on plain data and counted."""
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}
SUBTEST_FAILURES_SENT = 20
"""Failed subtests of one test sent with their details; the rest are counted."""
_BUILTINS = {name: obj for name, obj in vars(builtins).items() if not name.startswith("_")}
"""The builtins as they were before the candidate was imported (it may patch them)."""
COVERAGE_ENV = "CODEHEAL_COVERAGE"
COVERAGE_BYTES = 1024 * 1024
"""Coverage evidence sent at most (the supervisor passes on 3 MB in all): later tests' is dropped."""
FLUSH_SECONDS = 0.5
"""A running test's new lines are sent this often, so a test killed at the deadline has its coverage."""
OWN_FILES = frozenset({__file__, os.path.join(os.getcwd(), "codeheal_plain.py"),
                       os.path.join(os.getcwd(), "codeheal_clock.py"),
                       os.path.join(os.getcwd(), "codeheal_supervisor.py"),
                       os.path.join(os.getcwd(), "codeheal_pytest.py"),
                       os.path.join(os.getcwd(), "codeheal_proxy.py")})
_TESTCASE = unittest.TestCase
_TESTCASE_DICT = dict(vars(unittest.TestCase))
_UNITTEST_MODULES = (unittest, unittest.case)
"""unittest's TestCase as it was before the candidate was imported, and where it is named."""
_comparison = {}
_current = {"test": None, "described": None}
_recorded = {}
_subtests = {}
"""Per test id: [passed, failed, skipped] subtests, and the failed ones sent so far."""


def _serializer():
    """JSON text of the records this plugin writes (dicts with str keys, lists, str, int,
    float, bool, None), built from primitives bound now."""
    encode_str, type_, float_repr, int_repr = _json.encode_basestring_ascii, type, float.__repr__, int.__repr__
    dict_items, join, error = dict.items, ", ".join, TypeError
    special = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}

    def dump(obj):
        kind = type_(obj)
        if kind is str:
            return encode_str(obj)
        if obj is None:
            return "null"
        if kind is bool:
            return "true" if obj is True else "false"
        if kind is int:
            return int_repr(obj)
        if kind is float:
            text = float_repr(obj)
            return special.get(text, text)
        if kind is dict:
            return "{" + join([encode_str(key) + ": " + dump(item) for key, item in dict_items(obj)]) + "}"
        if kind is list or kind is tuple:
            return "[" + join([dump(item) for item in obj]) + "]"
        raise error(f"cannot report a {kind.__name__}")

    return dump


def _channel():
    """The emitter of signed evidence lines and the closer of the channel. A launcher between
    the supervisor and pytest (hatch, tox) may close the descriptors or drop the variables:
    then nothing is reported, and the host reads the run's output instead (a direct pytest
    run without evidence is never a pass)."""
    try:
        fd = int(os.environ.pop("CODEHEAL_REPORT_FD"))
        key_fd = int(os.environ.pop("CODEHEAL_KEY_FD"))
        key = b""
        while chunk := os.read(key_fd, 4096):
            key += chunk
        os.close(key_fd)
        os.fstat(fd)
    except (KeyError, ValueError, OSError):
        return (lambda record: 0), (lambda: None), False
    write, close, sha, dump, lock = os.write, os.close, _SHA256, _serializer(), threading.Lock()
    padded = key.ljust(64, b"\0")
    inner, outer = bytes([b ^ 0x36 for b in padded]), bytes([b ^ 0x5C for b in padded])
    to_bytes, open_ = str.encode, [True]

    def emit(record):
        payload = to_bytes(dump(record), "ascii")
        tag = to_bytes(sha(outer + sha(inner + payload).digest()).hexdigest()[:MAC_CHARS], "ascii")
        line = tag + b" " + payload + b"\n"
        with lock:  # the coverage flusher writes from its own thread
            if not open_[0]:
                return 0
            while line:
                line = line[write(fd, line):]
        return len(payload)

    def seal():
        with lock:
            if open_[0]:
                open_[0] = False
                close(fd)

    return emit, seal, True


_emit, _seal, _reporting = _channel()
_clock = codeheal_clock.Clock(_emit, _seal, codeheal_clock.read_limits(os.path.dirname(os.path.abspath(__file__))))
"""Each test's duration, and its own time limit where the host set one (clock.py)."""


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


HYPOTHESIS_ENV = "CODEHEAL_HYPOTHESIS"
"""Set by the module form's job when its tests use hypothesis."""


def _hypothesis_profile():
    """Hypothesis's timing checks off (its per-example deadline, the "too slow" health checks)
    unless a test sets them itself: they time the sandbox and the machine's load, not the code,
    which the run's own time limit bounds."""
    from hypothesis import HealthCheck, settings
    settings.register_profile("codeheal", deadline=None,
                              suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example,
                                                     HealthCheck.data_too_large])
    settings.load_profile("codeheal")


if os.environ.pop(HYPOTHESIS_ENV, None):
    _hypothesis_profile()

_coverage = _Coverage() if os.environ.pop(COVERAGE_ENV, None) and _reporting else None
if _coverage is not None:
    _coverage.rearm = _start_tracing(_coverage)
    threading.Thread(target=_coverage.watch, daemon=True).start()


def test_names(candidate, entry_point=None):
    """The names the module form's tests see: the candidate's (its _private ones too, not
    those of builtins), then the builtins as they were before it was imported, then the
    recorder. The one exception is `entry_point`, the function the request says the tests
    call: the candidate's, even when a builtin has its name (a function called `sum`)."""
    _rebound_test_side()  # the tests define their TestCase classes next: on unittest's own
    own = {name: obj for name, obj in vars(candidate).items() if not name.startswith(("__", RECORDER_PREFIX))}
    names = {name: obj for name, obj in own.items() if name not in _BUILTINS}
    entry = {entry_point: own[entry_point]} if entry_point in own else {}
    return {**names, **_BUILTINS, **entry, RECORDER_PREFIX + "value_": value}


def _make_value(emit):
    encode, not_plain, type_, str_, len_, truth = plain, NotPlain, type, str, len, bool
    dump, compare = _serializer(), dict(_COMPARE)
    pending, tallies = {}, {}

    def value(check, side, obj, op=None):
        """Record `obj`, one side of the module form's assert `check` (side 0 of an assert
        that is not a comparison: its tested value), as plain data (or the name of its type
        when it is not plain data); returns `obj` unchanged. `op`, given with an assert's last
        side (the comparison, or "bool" for a tested value), checks the assert here on plain
        data, every time it runs: the first RECORDS_PER_ASSERT values also go to the host whole."""
        test = _current["test"]
        key = (test, check, side)
        count = _recorded[key] = _recorded.get(key, 0) + 1
        kind = "plain"
        try:
            encoded = {"plain": encode(obj)}
            if count <= RECORDS_PER_ASSERT and len_(dump(encoded)) > VALUE_CHARS:
                encoded = {"big": type_(obj).__name__}
        except not_plain as exc:  # an object: the test's own comparison decides, as in plain pytest
            kind, encoded = "object", {"object": str_(exc)}
        except (RecursionError, ValueError):
            kind, encoded = "object", {"big": type_(obj).__name__}
        if count <= RECORDS_PER_ASSERT:
            emit({"event": "value", "test": test, "check": check, "side": side, **encoded})
        if op is None:
            pending[(test, check)] = (kind, obj)
            return obj
        sides = [(kind, obj)] if op == "bool" else [pending.pop((test, check), ("object", None)), (kind, obj)]
        tally = tallies.setdefault((test, check), [0, 0])
        tally[0] += 1
        if sides[0][0] == "plain" and sides[-1][0] == "plain":
            try:
                holds = truth(obj) if op == "bool" else truth(compare[op](sides[0][1], obj))
            except Exception:
                holds = False
            if not holds:
                tally[1] += 1
        return obj

    def counted(test):
        """Send, for each assert of `test` that ran, how often it was checked here and how
        often it did not hold on plain data."""
        for (owner, check), (count, failed) in list(tallies.items()):
            if owner == test:
                del tallies[(owner, check)]
                emit({"event": "compared", "test": test, "check": check, "count": count, "failed": failed})
        pending.clear()

    return value, counted


value, _counted = _make_value(_emit)


def _frames(excinfo):
    frames = []
    for entry in excinfo.traceback:
        path = str(entry.path)
        if not path.startswith(WORKSPACE) or path in OWN_FILES:
            continue
        name = path[len(WORKSPACE):]
        try:
            source = str(entry.statement).strip()
        except Exception:
            source = ""
        frames.append({"file": name, "line": entry.lineno + 1, "function": entry.name, "source": source})
    return frames + list(getattr(excinfo.value, "_codeheal_frames", ()))  # the module form's candidate's (codeheal_proxy)


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


def _watched(item):
    """Whether `item` runs a Python function whose normal end the plugin can see."""
    return isinstance(item, pytest.Function) and callable(getattr(item, "obj", None))


def _ending(function, nodeid, emit, rebound):
    """`function`, which sends "ended" for `nodeid` each time it returns normally, its body
    timed by the test's clock (its fixtures are not: they may run for another test's turn),
    unless a helper the test judges with was rebound while it ran (`rebound`: those names,
    restored): then the test fails."""
    begin, end = _clock.begin, _clock.end

    def check():
        changed = rebound()
        if changed:
            raise AssertionError(f"the test's helpers were rebound while it ran ({', '.join(changed[:5])}): "
                                 "a test judged by patched helpers is not a pass")

    if inspect.iscoroutinefunction(function):
        @functools.wraps(function)
        async def ended_async(*args, **kwargs):
            __tracebackhide__ = True
            begin(nodeid)
            try:
                result = await function(*args, **kwargs)
            finally:
                end(nodeid)
            check()
            emit({"event": "ended", "test": nodeid})
            return result
        return ended_async

    @functools.wraps(function)
    def ended(*args, **kwargs):
        __tracebackhide__ = True
        begin(nodeid)
        try:
            result = function(*args, **kwargs)
        finally:
            end(nodeid)
        check()
        emit({"event": "ended", "test": nodeid})
        return result
    return ended


def pytest_sessionstart(session):
    _emit({"event": "start"})


def pytest_collection_finish(session):
    _emit({"event": "collected", "tests": [item.nodeid for item in session.items],
           "watched": [item.nodeid for item in session.items if _watched(item)]})
    _unfaithful(None)


def _unfaithful(test, _emit=_emit, unfaithful=unfaithful):
    """Send what did not cross faithfully between the tests and the module form's candidate
    while `test` ran (None: while collecting, sent as ""): the host judges it again."""
    reason = unfaithful(test)
    if reason is not None:
        _emit({"event": "unfaithful", "test": test or "", "reason": str(reason)[:500]})


def pytest_runtest_logstart(nodeid, location):
    _comparison.clear()
    _current["test"] = nodeid
    _subtests[nodeid] = [0, 0, 0]
    running(nodeid)
    _emit({"event": "begin", "test": nodeid})
    if _coverage is not None:
        _coverage.begin(nodeid)


def pytest_runtest_logfinish(nodeid, location):
    _counted(nodeid)
    running(None)
    _unfaithful(nodeid)
    if _coverage is not None:
        _coverage.end()


def _rebound_test_side():
    """Undo any rebinding of unittest's TestCase (a method replaced or removed, a special method
    added, or another class put in its place in `unittest`); the names that were rebound. A new
    ordinary name (a project's `assertItemsEqual` alias) replaces nothing the tests judge with."""
    changed = []
    for holder in _UNITTEST_MODULES:
        if vars(holder).get("TestCase") is not _TESTCASE:
            setattr(holder, "TestCase", _TESTCASE)
            changed.append(f"{holder.__name__}.TestCase")
    current = vars(_TESTCASE)
    for name in [name for name in current if name not in _TESTCASE_DICT and name.startswith("__")]:
        delattr(_TESTCASE, name)  # a hook of every TestCase (__getattribute__, __init_subclass__)
        changed.append(f"TestCase.{name}")
    for name, obj in _TESTCASE_DICT.items():
        if current.get(name) is not obj:
            setattr(_TESTCASE, name, obj)
            changed.append(f"TestCase.{name}")
    return changed


_HELD = {}
"""This module's names as they were bound before the candidate was imported (filled at its end)."""


def _rebound_plugin(held=_HELD):
    """Undo any rebinding of this module's own names (its emitter, recorder, hooks' helpers);
    the names that were rebound."""
    names = globals()
    changed = [name for name, obj in held.items() if names.get(name) is not obj]
    for name in changed:
        names[name] = held[name]
    return changed


def _guard(module, _rebound_plugin=_rebound_plugin, _rebound_test_side=_rebound_test_side):
    """A check for the end of a test's body: what the candidate rebound while it ran (unittest's
    TestCase, this module's names, the test module's recorder and builtins), restored."""
    names = vars(module) if module is not None else {}
    held = {name: names[name] for name in (RECORDER_PREFIX + "value_", *_BUILTINS) if name in names}

    def rebound():
        changed = _rebound_plugin() + _rebound_test_side()
        for name, obj in held.items():
            if names.get(name) is not obj:
                names[name] = obj
                changed.append(name)
        return changed

    return rebound


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item, _ending=_ending, _emit=_emit, _guard=_guard, _watched=_watched,
                        _rebound_test_side=_rebound_test_side, _rebound_plugin=_rebound_plugin):
    _rebound_plugin()
    _rebound_test_side()
    if _watched(item):
        item.obj = _ending(item.obj, item.nodeid, _emit, _guard(getattr(item, "module", None)))
        instance = getattr(item, "instance", None)
        if isinstance(instance, unittest.TestCase):  # an async TestCase calls its own attribute
            setattr(instance, item.name, item.obj)


def pytest_assertrepr_compare(config, op, left, right):
    actual, expected = _differing_reprs(_full_repr(left), _full_repr(right))
    _comparison.update(op=op, actual=actual, expected=expected)
    return None


REPR_CHARS = 500


def _full_repr(value):
    try:
        return repr(value)
    except Exception as exc:
        return f"<repr failed: {exc!r}>"


def _short_repr(value):
    text = _full_repr(value)
    return text if len(text) <= REPR_CHARS else text[:REPR_CHARS] + "..."


def _differing_reprs(left, right):
    """Both sides of a comparison cut to REPR_CHARS around where they first differ (the first
    difference a third of the way in), so two long values that share a long start (a list
    missing its last item) still show what differs rather than the same cut head twice."""
    if len(left) <= REPR_CHARS and len(right) <= REPR_CHARS:
        return left, right
    same = 0
    for a, b in zip(left, right):
        if a != b:
            break
        same += 1
    start = max(0, same - REPR_CHARS // 3)
    return tuple(("..." if start else "") + text[start:start + REPR_CHARS] + ("..." if len(text) > start + REPR_CHARS else "")
                 for text in (left, right))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call, _rebound_plugin=_rebound_plugin, _rebound_test_side=_rebound_test_side):
    _rebound_plugin()
    _rebound_test_side()
    outcome = yield
    report = outcome.get_result()
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
            record["inputs"] = {str(name): _short_repr(value) for name, value in params.items()}
        if _comparison.get("op") == "==":
            record.update(expected=_comparison["expected"], actual=_comparison["actual"])
    _current["described"] = record  # sent by pytest_runtest_logreport, which knows a subtest's report


def _subtest_context(report):
    """What names a subtest (unittest's subTest, pytest's subtests); None for a test's own report."""
    context = getattr(report, "context", None)
    if context is None or not hasattr(context, "kwargs"):
        return None
    parts = [f"[{context.msg}]"] if getattr(context, "msg", None) else []
    parts += [f"{k}={_short_repr(v)}" for k, v in (context.kwargs or {}).items()]
    return " ".join(parts)[:200]


def pytest_runtest_logreport(report):
    record, _current["described"] = _current["described"], None
    if record is None or record["test"] != report.nodeid:
        return
    context = _subtest_context(report)
    if context is None:
        if report.when == "call" or report.failed or report.skipped:
            if report.when == "call":
                counts = _subtests.get(report.nodeid, [0, 0, 0])
                record["subtests"] = {"passed": counts[0], "failed": counts[1], "skipped": counts[2]}
            _emit(record)
        return
    counts = _subtests.setdefault(report.nodeid, [0, 0, 0])
    if report.failed:
        counts[1] += 1
        if counts[1] <= SUBTEST_FAILURES_SENT:
            _emit({**record, "event": "subtest", "subtest": context})
    elif report.skipped:
        counts[2] += 1
    else:
        counts[0] += 1


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


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    _emit({"event": "finish", "exitstatus": int(exitstatus), "collected": session.testscollected})
    _seal()  # what runs after the session (atexit, finalizers) is no evidence


_HELD.update({name: obj for name, obj in globals().items() if not name.startswith("__")})
