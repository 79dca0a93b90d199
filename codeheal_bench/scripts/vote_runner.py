"""Runs inside the sandbox for codeheal_bench/scripts/vote_ceiling.py (shipped as a job file, never imported
by the host): records the arguments the official check passes to the canonical solution, then
for each candidate writes one JSON line to the report channel: whether it loads, passes the
visible checks and the official check, and what it returns on each recorded argument list."""

import copy
import json
import math
import os
import random
import signal
import sys

MAX_CALLS = 200
MAX_TIMEOUTS = 3


class Timeout(BaseException):
    pass


def _alarm(signum, frame):
    raise Timeout()


def limited(seconds, fn, *args, **kwargs):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def load(code):
    namespace = {"__name__": "solution"}
    exec(compile(code, "solution.py", "exec"), namespace)
    return namespace


def with_check(namespace, problem):
    """The official test defined beside a module's names, in a copy: the module's own functions
    keep seeing their own globals, even one named `check` as the test's is (MBPP has one)."""
    tested = dict(namespace)
    exec(problem["hidden_test"], tested)
    return tested


def canon(value, depth=0):
    """A string that two equal results share: floats rounded, containers element-wise."""
    if depth > 20:
        return "..."
    if isinstance(value, bool) or value is None or isinstance(value, (int, str, bytes)):
        return repr(value)
    if isinstance(value, float):
        return repr(round(value, 6)) if math.isfinite(value) else repr(value)
    if isinstance(value, list):
        return "[" + ",".join(canon(v, depth + 1) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ",".join(canon(v, depth + 1) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ",".join(sorted(canon(k, depth + 1) + ":" + canon(v, depth + 1) for k, v in value.items())) + "}"
    if isinstance(value, (set, frozenset)):
        return "set(" + ",".join(sorted(canon(v, depth + 1) for v in value)) + ")"
    return "<" + type(value).__name__ + ">"


def recorded_calls(problem):
    namespace = load(problem["reference"])
    real = namespace[problem["entry_point"]]
    namespace = with_check(namespace, problem)
    calls = []

    def recorder(*args, **kwargs):
        if len(calls) < MAX_CALLS:
            calls.append(copy.deepcopy((args, kwargs)))
        return real(*args, **kwargs)

    random.seed(0)
    limited(60, namespace["check"], recorder)
    return calls


def judge(problem, code, calls):
    row = {"loads": False, "visible": False, "hidden": False, "outputs": None}
    try:
        limited(5, load, code)
    except BaseException as error:  # noqa: BLE001 - a candidate may raise anything, SystemExit included
        row["error"] = type(error).__name__
        return row
    row["loads"] = True
    try:
        limited(10, exec, problem["visible_tests"], load(code))
        row["visible"] = True
    except BaseException:  # noqa: BLE001
        pass
    try:
        namespace = load(code)
        function = namespace[problem["entry_point"]]
        random.seed(0)
        limited(20, with_check(namespace, problem)["check"], function)
        row["hidden"] = True
    except BaseException:  # noqa: BLE001
        pass
    outputs = []
    function = load(code).get(problem["entry_point"])
    for args, kwargs in calls:
        if outputs.count("!timeout") >= MAX_TIMEOUTS:  # a candidate that hangs is not waited on 200 times
            outputs.append("!timeout")
            continue
        random.seed(0)
        try:
            outputs.append(canon(limited(1, function, *copy.deepcopy(args), **copy.deepcopy(kwargs))))
        except Timeout:
            outputs.append("!timeout")
        except BaseException as error:  # noqa: BLE001
            outputs.append("!" + type(error).__name__)
    row["outputs"] = outputs
    return row


def main():
    signal.signal(signal.SIGALRM, _alarm)
    sys.stdout = sys.stderr = open(os.devnull, "w")  # what candidates print is not wanted
    report = int(os.environ.pop("CODEHEAL_REPORT_FD"))
    with open("problem.json", encoding="utf-8") as handle:
        problem = json.load(handle)
    calls = recorded_calls(problem)
    for index, code in enumerate(problem["candidates"]):
        os.write(report, (json.dumps({"index": index, "start": True}) + "\n").encode())
        row = judge(problem, code, calls)
        os.write(report, (json.dumps({"index": index, **row}) + "\n").encode())


if __name__ == "__main__":
    main()
