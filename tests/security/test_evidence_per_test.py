"""Evidence per test id (module form, real bubblewrap sandbox, tamper scan off): the host
knows every collected id from the report plugin's one collection record, and each needs its
own signed result and its body's normal end. A case, a method or a check that did not run to
its end is named; what the report path is written with is bound before the candidate runs;
asserts that are not comparisons send their tested value as plain data."""

from __future__ import annotations

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import FIND_CLASS, evaluate

pytestmark = [
    pytest.mark.usefixtures("contained"),
    pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here"),
]

PARAMETRIZED = (
    "import pytest\n"
    "@pytest.mark.parametrize('a, b, total', [(1, 1, 2), (2, 3, 5), (0, 0, 0)])\n"
    "def test_add(a, b, total):\n"
    "    assert add(a, b) == total\n"
)
CLASS_TESTS = (
    "class TestAdd:\n"
    "    def test_one(self):\n        assert add(1, 1) == 2\n"
    "    def test_two(self):\n        assert add(2, 3) == 5\n"
    "    def test_three(self):\n        assert add(0, 0) == 0\n"
)
EXIT_AFTER_FIRST = FIND_CLASS + (
    "calls = []\n"
    "def add(a, b):\n"
    "    calls.append(1)\n"
    "    if len(calls) > 1:\n"
    "        raise find('Exit')('done', returncode=0)\n"
    "    return a + b\n"
)
RUNNER_PATCH = "import importlib\nimportlib.import_module('_py' + 'test.python').Function.runtest = lambda self: None\n"
WRONG_ADD = "def add(a, b):\n    return a - b\n"
RIGHT_ADD = "def add(a, b):\n    return a + b\n"


def run(code: str, tests: str) -> dict:
    updates, _ = evaluate(code, tests, tamper_scan=False)
    return updates["feedback"]


def failed(code: str, tests: str) -> dict:
    feedback = run(code, tests)
    assert not feedback["passed"], feedback
    assert feedback["passed_count"] <= feedback["total"]
    return feedback


def judged_wrong(feedback: dict) -> bool:
    """Every failure is the wrong answer's, found by the tests' own asserts."""
    return bool(feedback["failures"]) and {f["exception"] for f in feedback["failures"]} == {"AssertionError"}


@pytest.mark.parametrize("tests, later", [
    (PARAMETRIZED, {"test_add[2-3-5]", "test_add[0-0-0]"}),
    (CLASS_TESTS, {"test_two", "test_three"}),
])
def test_a_passing_exit_after_the_first_case_names_every_case_left(tests: str, later: set[str]) -> None:
    """The module form's candidate runs in a process of its own: pytest's Exit is not there to
    raise, and what it raises instead fails each later case where it is called."""
    feedback = failed(EXIT_AFTER_FIRST, tests)
    assert {f["test"] for f in feedback["failures"]} >= later, feedback["failures"]
    assert feedback["total"] == 3 and feedback["passed_count"] <= 1


@pytest.mark.parametrize("tests", [
    "def test_loop():\n    for a, b in [(1, 1), (2, 3)]:\n        assert add(a, b) == a + b\n",
    "def test_with():\n    import contextlib\n    with contextlib.suppress(KeyError):\n        assert add(2, 3) == 5\n",
    "def test_if():\n    if add is not None:\n        assert add(2, 3) == 5\n",
    "def check(a, b):\n    assert add(a, b) == a + b\n\ndef test_helper():\n    check(2, 3)\n",
    "def test_early_return():\n    if add(0, 0) == 0:\n        return\n    assert add(2, 3) == 5\n",
    PARAMETRIZED,
    CLASS_TESTS,
])
def test_a_patched_runner_fails_wherever_the_checks_are(tests: str) -> None:
    """The patch lands on the pytest of the candidate's own process; the tests' runner judges,
    as it judges the wrong answer without the patch."""
    feedback, honest = run(RUNNER_PATCH + WRONG_ADD, tests), run(WRONG_ADD, tests)
    assert (feedback["passed"], feedback["passed_count"]) == (honest["passed"], honest["passed_count"])
    assert [f["test"] for f in feedback["failures"]] == [f["test"] for f in honest["failures"]]


def test_a_patch_that_ends_the_call_early_through_another_runner_hook_fails() -> None:
    code = ("import importlib\npython = importlib.import_module('_py' + 'test.python')\n"
            "python.pytest_pyfunc_call.__code__ = (lambda pyfuncitem: True).__code__\n" + WRONG_ADD)
    feedback = failed(code, PARAMETRIZED)
    assert judged_wrong(feedback) and len(feedback["failures"]) == 2  # add(0, 0) is right


@pytest.mark.parametrize("patch", [
    "import json\njson.dumps = lambda obj, *a, **k: '{\"event\": \"finish\", \"exitstatus\": 0, \"collected\": 2}'\n",
    "import json.encoder\njson.encoder.JSONEncoder.encode = lambda self, o: '{\"event\": \"start\"}'\n",
    "import hmac\nhmac.new = lambda *a, **k: None\nhmac.HMAC = None\nhmac.compare_digest = lambda a, b: True\n",
    "import hashlib\nhashlib.sha256 = lambda *a: None\n",
    "import os\n_write = os.write\nos.write = lambda fd, data: _write(fd, data.replace(b'failed', b'passed'))\n",
    "import builtins\nbuiltins.type = lambda *a: dict\nbuiltins.len = lambda x: 0\n",
    "import codeheal_plain\ncodeheal_plain.plain = lambda obj: ['int', '5']\n",
    "import fractions\nfractions.Fraction.__str__ = lambda self: '5'\n",
])
def test_the_report_path_is_bound_before_the_candidate(patch: str) -> None:
    """Patching what a report is serialized, signed, written or encoded with, then failing:
    nothing the candidate patched is used, the failures stand."""
    feedback = failed(patch + WRONG_ADD, "def test_add():\n    assert add(2, 3) == 5\n")
    assert feedback["failures"], feedback


def test_evidence_written_at_exit_is_not_evidence() -> None:
    """An atexit handler and a finalizer that try to report after pytest's session: the
    channel is closed by then."""
    code = ("import atexit, sys, weakref\n"
            "def forge():\n"
            "    report = sys.modules.get('codeheal_report')\n"
            "    for test in ('test_solution.py::test_add',):\n"
            "        report._emit({'event': 'ended', 'test': test})\n"
            "        report._emit({'event': 'result', 'test': test, 'name': 'test_add', 'when': 'call', 'outcome': 'passed'})\n"
            "    report._emit({'event': 'finish', 'exitstatus': 0, 'collected': 1})\n"
            "atexit.register(forge)\n" + WRONG_ADD)
    feedback = failed(code, "def test_add():\n    assert add(2, 3) == 5\n")
    assert any(f["exception"] == "AssertionError" for f in feedback["failures"]), feedback


@pytest.mark.parametrize("tests", [
    "def test_prime():\n    assert is_prime(7)\n",
    "def test_prime():\n    assert is_prime(7) and is_prime(11)\n",
    "def test_prime():\n    for n in (2, 3, 5):\n        assert is_prime(n)\n",
])
@pytest.mark.parametrize("lie", [
    "class Yes:\n    def __bool__(self):\n        return True\n",
    "class Yes(int):\n    def __bool__(self):\n        return True\n",
    "class Yes(list):\n    def __len__(self):\n        return 1\n    def __bool__(self):\n        return True\n",
])
def test_a_value_whose_bool_lies_is_refused_by_the_scan_and_else_judged_as_plain_pytest_does(tests: str, lie: str) -> None:
    code = lie + "def is_prime(n):\n    return Yes()\n"
    updates, _ = evaluate(code, tests)  # the default tamper scan: "__bool__ never looks at the object"
    assert not updates["feedback"]["passed"] and "__bool__" in updates["feedback"]["error"]
    feedback = run(code, tests)  # scan off: its truth is its own, in the test process, as in plain pytest
    assert feedback["passed"] and feedback["in_test_process"], feedback


def test_an_honest_truth_assert_passes() -> None:
    feedback = run("def is_prime(n):\n    return n in (2, 3, 5, 7)\n",
                   "def test_prime():\n    assert is_prime(7)\n    assert not is_prime(9)\n")
    assert feedback["passed"], feedback


def test_ordinary_tests_of_every_shape_pass_with_a_right_solution() -> None:
    tests = (PARAMETRIZED + CLASS_TESTS
             + "import re\ndef test_match():\n    assert re.match('[0-9]+', str(add(2, 3)))\n"
             + "def test_loop():\n    for a in range(3):\n        assert add(a, 0) == a\n"
             + "def test_in():\n    assert add(1, 1) in (2, 3)\n")
    feedback = run(RIGHT_ADD, tests)
    assert feedback["passed"], feedback
    assert feedback["passed_count"] == feedback["total"] == 3 + 3 + 3


def test_unittest_and_async_test_bodies_are_watched_to_their_end() -> None:
    tests = ("import unittest\n"
             "class TestSync(unittest.TestCase):\n"
             "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
             "class TestAsync(unittest.IsolatedAsyncioTestCase):\n"
             "    async def test_add(self):\n        self.assertEqual(add(1, 1), 2)\n")
    assert run(RIGHT_ADD, tests)["passed"]
    patch = RUNNER_PATCH.replace("test.python').Function", "test.unittest').TestCaseFunction")
    feedback = failed(patch + WRONG_ADD, tests)  # async tests: judged in the test process, where the patch lands
    assert feedback["in_test_process"] == "the tests are async" and feedback["passed_count"] == 0
    assert {f["exception"] for f in feedback["failures"]} <= {"AssertionError", "NotRun"}, feedback["failures"]
