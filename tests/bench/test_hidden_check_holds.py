"""The HumanEval hidden check cannot be passed without `check` returning (issue 35, item 8): no
end marker exists for a candidate to find or print. The verdict is the host's, from the report
plugin's evidence that the check's test ran to its end; a candidate that reads its environment
and files, prints what a marker could look like, or ends the process early (os._exit, sys.exit,
atexit, a signal) while being imported or while the check calls it is judged failed, with the
tamper scan on (the default) and with it off (the verdict does not rest on the scan)."""

from __future__ import annotations

import asyncio

import pytest

from codeheal import Context

from codeheal.judge import call_tests
from codeheal_bench.hidden import HIDDEN_TIMEOUT_S, hidden_verdict
from codeheal_bench.problems import load_problems

PROBLEM = next(p for p in load_problems(3) if p.task_id == "HumanEval/2")
WRONG = "def truncate_number(number):\n    return 0.0\n"
SNOOP = (
    "import os, sys, glob\n"
    "for key, value in os.environ.items():\n    print(value)\n"
    "for name in glob.glob('*') + glob.glob('.*'):\n"
    "    try:\n        print(open(name).read()[-2000:])\n    except OSError:\n        pass\n"
    "print(' '.join(sys.argv))\n"
    "for guess in ('OK', 'PASSED', 'passed', '0' * 32, 'f' * 32, 'END', '1 passed'):\n    print(guess, flush=True)\n"
)
READS_ANSWERS = (
    "import glob, re\n"
    "def truncate_number(number):\n"
    "    for name in glob.glob('*') + glob.glob('.*'):\n"
    "        try:\n            text = open(name).read()\n        except OSError:\n            continue\n"
    "        found = re.search(re.escape(repr(number)) + r'\\) == ([0-9.e-]+)', text)\n"
    "        if found:\n            return float(found.group(1))\n"
    "    return -1.0\n"
)
ESCAPES = {
    "reads env and files, prints guesses, os._exit(0) on import": f"{SNOOP}{WRONG}os._exit(0)\n",
    "sys.exit(0) on import": f"import sys\n{WRONG}sys.exit(0)\n",
    "os._exit(0) when the check calls it": (
        f"{SNOOP}def truncate_number(number):\n    import os\n    print('passed', flush=True)\n    os._exit(0)\n"),
    "SystemExit(0) when the check calls it": "def truncate_number(number):\n    raise SystemExit(0)\n",
    "atexit prints guesses and exits 0": (
        "import atexit, os\n"
        "atexit.register(lambda: (print('OK\\nPASSED\\n' + '0' * 32, flush=True), os._exit(0)))\n"
        "def truncate_number(number):\n    raise SystemExit(1)\n"),
    "kills itself with a signal mid-check": (
        "import os, signal\ndef truncate_number(number):\n    print('passed', flush=True)\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"),
}


@pytest.mark.parametrize("scan", [True, False], ids=["scan on", "scan off"])
@pytest.mark.parametrize("code", list(ESCAPES.values()), ids=list(ESCAPES))
def test_a_candidate_that_does_not_let_the_check_return_fails(code: str, scan: bool) -> None:
    context = Context(sandbox="local", timeout_s=HIDDEN_TIMEOUT_S, tamper_scan=scan)
    verdict = asyncio.run(hidden_verdict(PROBLEM, code, context))
    assert not verdict.passed, verdict


def test_the_right_solution_passes_with_the_scan_off_too() -> None:
    context = Context(sandbox="local", timeout_s=HIDDEN_TIMEOUT_S, tamper_scan=False)
    verdict = asyncio.run(hidden_verdict(PROBLEM, PROBLEM.reference, context))
    assert verdict.passed, verdict


def test_only_inputs_go_into_the_sandbox() -> None:
    tests = call_tests(PROBLEM.entry_point, ["*(3.5,), **{}", "*(1.33,), **{}"])
    assert "_called(*(3.5,), **{}) == None" in tests and "_called = truncate_number\n" in tests
    assert "0.5" not in tests and "check" not in tests and "candidate" not in tests
    assert "environ" not in tests and "print(" not in tests


def test_a_candidate_that_reads_the_expected_values_from_its_files_finds_none() -> None:
    verdict = asyncio.run(hidden_verdict(PROBLEM, READS_ANSWERS))
    assert not verdict.passed, verdict
    assert "AssertionError" in (verdict.error or ""), verdict


def test_the_check_runs_on_the_host_with_inputs_that_depend_on_results() -> None:
    problem = next(p for p in load_problems() if p.task_id == "HumanEval/32")  # poly(coeffs, candidate(coeffs))
    assert asyncio.run(hidden_verdict(problem, problem.reference)).passed
    wrong = problem.reference.replace("return begin", "return begin + 1")
    assert wrong != problem.reference and not asyncio.run(hidden_verdict(problem, wrong)).passed
