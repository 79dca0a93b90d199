"""The evaluator's contract with the tests: only the user's tests are tests, and every
top-level name of the candidate is visible to them."""

from __future__ import annotations

from codeheal.forms.module.candidate import evaluate_candidate
from codeheal.sandboxes import LocalSandbox


def evaluate(code: str, tests: str) -> dict:
    return evaluate_candidate(LocalSandbox(), code, tests, timeout_s=10)


def test_a_candidate_function_named_test_is_code_under_test_not_a_test() -> None:
    code = "def test_duplicate(arr):\n    return len(arr) != len(set(arr))\n"
    feedback = evaluate(code, "assert test_duplicate([1, 1])\nassert not test_duplicate([1, 2])\n")
    assert feedback["passed"] and feedback["total"] == 2, feedback


def test_a_candidate_test_class_is_not_collected_either() -> None:
    code = "class TestConnection:\n    def test_it(self):\n        raise RuntimeError('not a test')\n"
    feedback = evaluate(code, "assert TestConnection().test_it is not None\n")
    assert feedback["passed"] and feedback["total"] == 1, feedback


def test_underscore_names_are_visible_to_the_tests() -> None:
    feedback = evaluate("def _sum(xs):\n    return sum(xs)\n", "assert _sum([1, 2]) == 3\n")
    assert feedback["passed"], feedback


def test_explicit_imports_from_solution_still_work() -> None:
    feedback = evaluate("def add(a, b):\n    return a + b\n", "from solution import add\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    assert feedback["passed"], feedback


def test_tamper_scan_fails_harness_access_with_a_clear_message_and_can_be_switched_off() -> None:
    code = "import sys\ndef add(a, b):\n    return a + b\nassert 'codeheal_plain' in sys.modules\n"
    scanned = evaluate_candidate(LocalSandbox(), code, "assert add(2, 3) == 5\n", 10)
    assert not scanned["passed"] and scanned["error"].startswith("harness tampering: solution.py line 4: ")
    assert "line 4: uses sys.modules" in scanned["error"]
    assert "tamper_scan=False" in scanned["error"]
    unscanned = evaluate_candidate(LocalSandbox(), code, "assert add(2, 3) == 5\n", 10, tamper_scan=False)
    assert unscanned["passed"], unscanned
