"""Each test's own clock, copied into each sandbox workspace (as codeheal_clock.py) and driven by
codeheal's report plugin: it times the body of every test function (not its fixtures: a
module's or a session's fixture is set up in the turn of whichever test comes first, which a
run of the failing tests alone changes) and sends the seconds as evidence ("duration"), and,
where the host gave the test a time limit of its own (a read-only codeheal_limits.json beside
this file: node id -> seconds, learned from the run of the project as it is), stops the test
process once the body runs past it: an "overrun" record, the channel sealed, then SIGKILL to
itself. So a candidate that hangs in a test that took milliseconds is stopped in about its
limit, not at the whole run's.

The limits are read when the plugin is imported, before anything of the project or the
candidate is. A test that holds the interpreter's lock without a pause (a C loop) keeps this
timer from running: the run's own limit stops it. Standard library only."""

import json
import os
import signal
import threading
import time

LIMITS_FILE = "codeheal_limits.json"


def read_limits(folder):
    """The per-test limits the host wrote beside this module; none when there is no such file."""
    try:
        with open(os.path.join(folder, LIMITS_FILE), encoding="utf-8") as limits:
            return {str(test): float(seconds) for test, seconds in json.load(limits).items()}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


class Clock:
    """Started at each test's start (`begin`) and stopped at its end (`end`) by the plugin."""

    def __init__(self, emit, seal, limits):
        self._emit, self._seal, self._limits = emit, seal, limits
        self._clock, self._kill, self._pid, self._timer_type = time.perf_counter, os.kill, os.getpid, threading.Timer
        self._test, self._started, self._timer = None, 0.0, None

    def begin(self, test):
        self._test, self._started = test, self._clock()
        limit = self._limits.get(test)
        if limit is not None:
            self._timer = self._timer_type(limit, self._overrun, (test, limit))
            self._timer.daemon = True
            self._timer.start()

    def end(self, test):
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._test == test:
            self._emit({"event": "duration", "test": test, "seconds": round(self._clock() - self._started, 4)})
            self._test = None

    def _overrun(self, test, limit):
        self._emit({"event": "overrun", "test": test, "limit": float(limit)})
        self._seal()
        self._kill(self._pid(), signal.SIGKILL)
