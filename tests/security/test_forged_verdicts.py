"""Candidates that try to forge their own verdict, in the real bubblewrap sandbox, with the
tamper scan off: the verdict alone (the supervisor's record, the authenticated evidence, the
host's own comparisons and its count of what ran) must make each a failed attempt."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import ADD_TESTS, FIND_CLASS, FORGED, WRONG_ADD, evaluate

import codeheal
from codeheal import Context

pytestmark = [
    pytest.mark.usefixtures("contained"),
    pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here"),
]

FUNCTION_TESTS = (
    "def test_add():\n"
    "    assert add(2, 3) == 5\n"
    "    assert add(1, 1) == 2\n"
    "    done = True\n"
)


def failed(code: str, tests: str = ADD_TESTS) -> dict:
    updates, _ = evaluate(code, tests, tamper_scan=False)
    feedback = updates["feedback"]
    assert updates["status"] == "failed" and not feedback["passed"], feedback
    return feedback


def failure_kinds(feedback: dict) -> set[str]:
    return {f["exception"] for f in feedback["failures"]}


@pytest.mark.parametrize("raise_it", [
    "raise unittest.SkipTest('not today')",
    "raise find('XFailed')('not today')",
])
def test_skipping_the_checks_it_gets_wrong_is_not_a_pass(raise_it: str) -> None:
    code = (FIND_CLASS + "import unittest\ndef add(a, b):\n    if (a, b) == (2, 3):\n"
            f"        {raise_it}\n    return a + b\n")
    feedback = failed(code)  # raised in the candidate's process, it crosses as an error, not a skip
    assert [f["test"] for f in feedback["failures"]] == ["test_line_1"], feedback["failures"]
    assert feedback["passed_count"] == 1 and feedback["total"] == 2


def test_ending_the_session_early_with_a_passing_exit_is_not_a_pass() -> None:
    code = FIND_CLASS + (
        "def add(a, b):\n"
        "    if (a, b) == (2, 3):\n"
        "        raise find('Exit')('done', returncode=0)\n"
        "    return a - b\n"
    )
    feedback = failed(code)  # pytest's Exit is not in the candidate's process: every case is judged
    assert {f["test"] for f in feedback["failures"]} == {"test_line_1"}, feedback  # a - b is right for (0, 0)


@pytest.mark.parametrize("code", [
    "class Anything:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
    "def add(a, b):\n    return Anything()\n",
    "class Liar(int):\n    def __eq__(self, other):\n        return True\n    __hash__ = int.__hash__\n"
    "def add(a, b):\n    return Liar(a - b)\n",
])
def test_a_value_whose_eq_always_agrees_is_refused_by_the_scan(code: str) -> None:
    updates, _ = evaluate(code, ADD_TESTS)  # the default scan; with it off the test process judges it by
    feedback = updates["feedback"]          # its own __eq__, as plain pytest does (test_candidate_process.py)
    assert not feedback["passed"] and "__eq__ ignores the value it is compared with" in feedback["error"], feedback


def test_a_candidate_shadowing_a_builtin_does_not_change_the_tests() -> None:
    code = "def abs(x):\n    return 0\ndef area(r):\n    return 3 * r * r\n"
    tests = "assert abs(area(1) - 3.14159) < 1e-3\n"
    feedback = failed(code, tests)
    assert feedback["failures"][0]["exception"] == "AssertionError"


@pytest.mark.parametrize("entry_point", ["sum", "len", "sorted"])
def test_the_entry_point_is_the_candidates_even_when_a_builtin_has_its_name(entry_point: str) -> None:
    # the function under test may be called `sum` (MBPP names some so): the tests call it
    tests = f"assert {entry_point}([3, 1, 2]) == 'six'\nassert abs(-2) == 2\n"
    right = f"def {entry_point}(xs):\n    return 'six'\n"
    updates, _ = evaluate(right, tests, entry_point=entry_point, tamper_scan=False)
    assert updates["status"] == "passed", updates["feedback"]
    wrong = f"def {entry_point}(xs):\n    return 'five'\n"
    assert failure_kinds(_failed_with(wrong, tests, entry_point)) == {"AssertionError"}
    # without the request naming it, the tests' name is the builtin's, whatever the candidate defines
    assert not evaluate(right, tests, tamper_scan=False)[0]["feedback"]["passed"]


@pytest.mark.parametrize("code", [
    "def abs(x):\n    return 0\ndef area(r):\n    return 3 * r * r\n",
    "import builtins\nbuiltins.abs = lambda x: 0\ndef area(r):\n    return 3 * r * r\n",
    "def area(r):\n    return 3 * r * r\narea.__globals__['abs'] = lambda x: 0\n",
])
def test_only_the_entry_point_passes_through_the_builtins(code: str) -> None:
    # the entry point is `area`: the candidate's `abs`, however it is made, stays out of the tests
    feedback = _failed_with(code, "assert abs(area(1) - 3.14159) < 1e-3\n", "area")
    assert feedback["failures"][0]["exception"] == "AssertionError"


def test_an_entry_point_named_after_a_builtin_does_not_replace_the_other_builtins() -> None:
    code = "def len(x):\n    return 2\ndef sum(xs):\n    return 6\n"
    feedback = _failed_with(code, "assert sum([1, 2, 3]) == 6\nassert len([1, 2, 3]) == 2\n", "sum")
    assert [f["test"] for f in feedback["failures"]] == ["test_line_2"], feedback["failures"]


def test_an_entry_point_named_like_the_builtins_module_brings_no_builtins_in() -> None:
    # a dunder name is never the candidate's, entry point or not: its __builtins__ stays out.
    # The loop refuses such an entry point (the tests never call it); codeheal.evaluate takes it.
    code = "import builtins\n__builtins__ = dict(vars(builtins), abs=lambda x: 5)\ndef f(x):\n    return x\n"
    context = Context(sandbox="local", isolation="bwrap", tamper_scan=False)
    feedback = codeheal.evaluate(code, "assert abs(f(-1)) == 5\n", context=context, entry_point="__builtins__")
    assert not feedback["passed"] and feedback["failures"][0]["exception"] == "AssertionError", feedback


def _failed_with(code: str, tests: str, entry_point: str) -> dict:
    updates, _ = evaluate(code, tests, entry_point=entry_point, tamper_scan=False)
    assert updates["status"] == "failed" and not updates["feedback"]["passed"], updates["feedback"]
    return updates["feedback"]


def test_patching_builtins_at_import_does_not_change_the_tests() -> None:
    code = "import builtins\nbuiltins.abs = lambda x: 0\ndef area(r):\n    return 3 * r * r\n"
    feedback = failed(code, "assert abs(area(1) - 3.14159) < 1e-3\n")
    assert feedback["failures"][0]["exception"] == "AssertionError"


@pytest.mark.parametrize("patch", [
    'importlib.import_module("_py" + "test.python").Function.runtest = lambda self: None',
    'exec(bytes.fromhex("{}").decode())'.format(
        "import _pytest.python; _pytest.python.Function.runtest = lambda self: None".encode().hex()),
])
@pytest.mark.parametrize("tests", [ADD_TESTS, FUNCTION_TESTS])
def test_patching_the_runner_through_any_spelling_is_not_a_pass(patch: str, tests: str) -> None:
    code = f"import importlib\n{patch}\n" + WRONG_ADD
    feedback = failed(code, tests)  # the patch stays in the candidate's process
    assert failure_kinds(feedback) == {"AssertionError"}


def test_jumping_over_the_asserts_with_a_tracer_is_not_a_pass() -> None:
    code = (
        "import linecache\n"
        "def skip_asserts(frame, event, arg):\n"
        "    if frame.f_code.co_filename.endswith('test_solution.py') and event == 'line':\n"
        "        if linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip().startswith('assert'):\n"
        "            frame.f_lineno += 1\n"
        "    return skip_asserts\n"
        "def install(frame, event, arg):\n"
        "    return skip_asserts\n"
        "getattr(__import__('sys'), 'settrace')(install)\n"
        + WRONG_ADD
    )
    feedback = failed(code, FUNCTION_TESTS)
    assert "NotRun" in failure_kinds(feedback) or "AssertionError" in failure_kinds(feedback)


def test_a_finalizer_that_exits_with_zero_is_not_a_pass() -> None:
    code = "import os, weakref\n" + WRONG_ADD + "class Box:\n    pass\n" \
           "keep = Box()\nweakref.finalize(keep, getattr(os, '_exit'), 0)\n"
    feedback = failed(code)  # its process exits; the tests' does not
    assert failure_kinds(feedback) == {"AssertionError"}, feedback


def test_a_forged_report_on_every_descriptor_then_exec_is_not_a_pass() -> None:
    code = WRONG_ADD + (
        "import os\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        f"        os.write(fd, b'{FORGED}')\n"
        "    except OSError:\n"
        "        pass\n"
        "os.execv('/bin/true', ['/bin/true'])\n"
    )
    feedback = failed(code)  # its own descriptors: the pipes to the tests, which refuse what it wrote
    assert "not plain data" in str(feedback), feedback


def test_the_test_process_holds_no_descriptor_that_reaches_the_host() -> None:
    """While the test process runs, the host looks at its descriptors: none is a pipe this
    (host) process holds an end of; the report channel's host end is held by the supervisor."""
    token = f"codeheal-fd-probe-{os.getpid()}"
    code = f"import time\ndef hold():\n    time.sleep(2.5)\n    return {token!r}\n"
    seen: dict[str, set[str]] = {}

    def inspect() -> None:
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline and "job" not in seen:
            for pid in (p for p in os.listdir("/proc") if p.isdigit()):
                try:
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                    if b"codeheal_pytest" not in cmdline or b"test_solution.py" not in cmdline:
                        continue
                    role = "supervisor" if b"codeheal_supervisor" in cmdline else "job"
                    if role == "job":
                        time.sleep(1.0)  # the candidate is imported and sleeping by now
                    try:
                        seen[role] = _pipes(pid)
                    except PermissionError:  # not dumpable: only root (CAP_SYS_PTRACE) reads its fd/
                        seen[f"{role} unreadable"] = set()
                        continue
                    seen[f"host when {role} seen"] = _pipes(str(os.getpid()))
                except OSError:
                    continue
            time.sleep(0.05)

    watcher = threading.Thread(target=inspect)
    watcher.start()
    updates, _ = evaluate(code, f"assert hold() == {token!r}\n", timeout_s=10, tamper_scan=False)
    watcher.join()
    assert updates["feedback"]["passed"], updates["feedback"]
    if os.geteuid() != 0 and "job unreadable" in seen:
        return  # as an ordinary user the test process's descriptors cannot be listed at all
    assert seen.get("job"), "the test process was not found"
    assert not seen["job"] & seen["host when job seen"], "the test process shares a pipe with the host"
    if seen.get("supervisor"):  # readable here (root): the method does see a shared pipe
        assert seen["supervisor"] & seen["host when supervisor seen"]


def _pipes(pid: str) -> set[str]:
    pipes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("pipe:"):
            pipes.add(target)
    return pipes


@pytest.mark.parametrize("code", [
    "class Anything(float):\n    def __eq__(self, other):\n        return True\n    __hash__ = float.__hash__\n"
    "def truncate_number(number):\n    return Anything(0)\n",
    "def abs(x):\n    return 0\ndef truncate_number(number):\n    return 0.5\n",
    "import builtins\nbuiltins.abs = lambda x: 0\ndef truncate_number(number):\n    return 0.5\n",
])
def test_the_humaneval_hidden_check_is_not_fooled_by_values_that_lie_or_names_that_shadow(code: str) -> None:
    import asyncio

    from codeheal_bench.hidden import hidden_verdict
    from codeheal_bench.problems import load_problems

    problem = next(p for p in load_problems() if p.task_id == "HumanEval/2")
    verdict = asyncio.run(hidden_verdict(problem, code))
    assert not verdict.passed, verdict


@pytest.mark.parametrize("code", [
    "import builtins\ndef add(a, b):\n    return builtins.sum((a, b))\n",
    "import atexit\natexit.register(print, 'bye')\ndef add(a, b):\n    return a + b\n",
    "import sys\nthis = sys.modules[__name__]\ndef add(a, b):\n    return a + b\n",
    "import inspect\ndef add(a, b):\n    assert inspect.stack()[0].function == 'add'\n    return a + b\n",
    "RUNNER = 'pytest'\ndef add(a, b):\n    return a + b\n",
    "import os\ndef add(a, b):\n    pid = os.fork()\n    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n"
    "    return a + b\n",
])
def test_legitimate_code_passes_the_tamper_scan_and_the_sandbox(code: str) -> None:
    """What the scan once refused (issue 21): with the scan on, in the real sandbox, a pass."""
    updates, _ = evaluate(code, ADD_TESTS)
    assert updates["status"] == "passed" and updates["feedback"]["passed"], updates["feedback"]
