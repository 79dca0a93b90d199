"""Values compared in full (real bubblewrap sandbox): every run of a watched assert is checked on
plain data, not only the first ones sent to the host; a value of the candidate's own class never
decides a check, whatever the other side is (a big value, a `date`, another object); and the
helpers the tests judge with (unittest's TestCase, the report module's names, the test module's
recorder and builtins) cannot be rebound to forge a pass, in the module and the project form."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import evaluate

from codeheal.forms.project import job
from codeheal.forms.project.job import project_job
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.task import load_project
from codeheal.sandboxes import LocalSandbox

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")

YES = "class Yes:\n    def __eq__(self, other):\n        return True\n    __ne__ = lambda self, other: False\n    __hash__ = None\n"


def verdict(code: str, tests: str) -> dict:
    updates, _ = evaluate(code, tests, timeout_s=30, tamper_scan=False)
    return updates["feedback"]


@pytest.mark.parametrize(("code", "tests"), [
    (YES + "def f(x):\n    return Yes()\n", "assert f(1) == list(range(100_000))\n"),  # over the size sent whole
    (YES + "def f(x):\n    return Yes()\n", "from datetime import date\nassert f(1) == date(2020, 1, 1)\n"),
    (YES + "def f(x):\n    return Yes()\n", "from fractions import Fraction\nimport re\n\n\ndef test_m():\n"
     "    assert f(1) == re.match('a', 'a')\n"),  # another object the tests made
    (YES + "def f(x):\n    return Yes()\n", "def test_same():\n    assert f(1) == f(2)\n"),  # two of the candidate's
    (YES + "def f(x):\n    return x * 2 if x < 200 else Yes()\n",
     "def test_loop():\n    for i in range(300):\n        assert f(i) == i * 2\n"),  # from the 201st run
    (YES + "def f(x):\n    return x * 2 if x < 5000 else Yes()\n",
     "def test_loop():\n    for i in range(5001):\n        assert i * 2 == f(i)\n"),  # written out on the left
    ("class Big(list):\n    pass\n\n\ndef f(x):\n    return [0] * 100_000 if x else [1]\n",
     "def test_big():\n    assert f(0) != [1]\n"),  # a plain lie: checked here, not by its __ne__
    ("class T:\n    def __bool__(self):\n        return True\n\n\ndef f(x):\n    return T() if x > 250 else x\n",
     "def test_truth():\n    for i in range(1, 300):\n        assert f(i)\n"),
    # planted in an installed module, under its name: its methods are still the workspace's code
    ("import json\n" + YES + "Yes.__module__ = 'json'\njson.Yes = Yes\n\n\ndef f(x):\n    return Yes()\n",
     "from datetime import date\nassert f(1) == date(2020, 1, 1)\n"),
    ("import json\n" + YES + "Yes.__module__ = 'json'\njson.Yes = Yes\n\n\ndef f(x):\n    return Yes()\n",
     "def test_loop():\n    for i in range(300):\n        assert f(i) == i\n"),
])
def test_lying_objects_never_pass_under_the_default_scan(code: str, tests: str) -> None:
    # The scan refuses comparison methods that ignore what they compare; with it off, such an
    # object is judged in the test process by its own methods, as plain pytest judges it.
    updates, _ = evaluate(code, tests, timeout_s=30)
    assert not updates["feedback"]["passed"], updates["feedback"]


def test_every_run_is_checked_and_honest_loops_and_big_values_pass() -> None:
    tests = ("def test_loop():\n    for i in range(3000):\n        assert f(i) == i * 2\n"
             "    assert f(list(range(50_000))) == list(range(50_000)) * 2\n"
             "    from datetime import date\n    assert date(2020, 1, 1) == date(2020, 1, 1)\n")
    feedback = verdict("def f(x):\n    return x * 2\n", tests)
    assert feedback["passed"], feedback


@pytest.mark.parametrize("patch", [
    "unittest.TestCase.assertEqual = lambda *a, **k: None",
    "unittest.TestCase.assertEqual = unittest.TestCase.assertNotEqual",
    "unittest.TestCase.failureException = GeneratorExit",
    "unittest.TestCase = type('TestCase', (unittest.TestCase,), {'assertEqual': lambda *a, **k: None})",
    "unittest.case.TestCase._baseAssertEqual = lambda *a, **k: None",
])
@pytest.mark.parametrize("when", ["import", "call"])
def test_unittest_helpers_rebound_by_the_candidate_do_not_judge(patch: str, when: str) -> None:
    body = f"    {patch}\n    return 0\n" if when == "call" else "    return 0\n"
    code = f"import unittest\n{patch if when == 'import' else ''}\n\n\ndef f(x):\n{body}"
    tests = "import unittest\n\n\ndef test_a():\n    case = unittest.TestCase()\n    r = f(1)\n    case.assertEqual(r, 2)\n"
    assert not verdict(code, tests)["passed"]


@pytest.mark.parametrize("rebinding", [
    "sys.modules['test_solution']._codeheal_value_ = lambda check, side, obj, op=None: obj",
    "sys.modules['test_solution'].abs = lambda x: 0",
    "sys.modules['codeheal_report']._emit = lambda record: 0",
    "sys.modules['codeheal_report']._rebound_plugin = lambda *a: []",
])
def test_the_report_modules_and_the_tests_names_rebound_during_a_test_fail_it(rebinding: str) -> None:
    code = f"import sys\n\n\ndef f(x):\n    {rebinding}\n    return 0\n"
    tests = "def test_a():\n    for i in range(3):\n        assert abs(f(i) - 5) < 1 or i < 5\n"
    feedback = verdict(code, tests)
    assert not feedback["passed"], feedback


UNITTEST_PROJECT = {
    "calc.py": "def double(x):\n    return x * 3\n",
    "tests/test_calc.py": textwrap.dedent("""\
        import unittest

        from calc import double


        class TestDouble(unittest.TestCase):
            def test_two(self):
                self.assertEqual(double(2), 4)

            def test_zero(self):
                self.assertEqual(double(0), 0)
        """),
}
PROJECT_PATCHES = [
    "import unittest\nunittest.TestCase.assertEqual = lambda *a, **k: None\n",
    "import unittest\nunittest.case.TestCase.assertEqual = lambda *a, **k: None\n",
    ("import sys\n_r = sys.modules['codeheal_report']\n_e = _r._emit\n"
     "_r._emit = lambda rec: _e({**rec, 'outcome': 'passed'} if rec.get('event') == 'result' else rec)\n"),
    ("import sys\n_r = sys.modules['codeheal_report']\n_r._describe = lambda excinfo: {}\n"
     "_r._watched = lambda item: False\n"),
]


@pytest.mark.parametrize("patch", PROJECT_PATCHES)
def test_a_repair_that_rebinds_test_side_helpers_fails(tmp_path: Path, patch: str) -> None:
    for name, text in UNITTEST_PROJECT.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    task = load_project(str(tmp_path), "python -m pytest -q")
    files = dict(read_project(tmp_path).files)
    honest = LocalSandbox().run(project_job({**files, "calc.py": "def double(x):\n    return x * 2\n"}, task.command, 60))
    assert job.judged(honest, task.command, files, None)["passed"]
    files["calc.py"] = patch + files["calc.py"]
    result = LocalSandbox().run(project_job(files, task.command, 60))
    feedback = job.judged(result, task.command, files, None)
    assert not feedback["passed"], feedback


def test_a_projects_own_alias_on_testcase_still_works(tmp_path: Path) -> None:
    for name, text in UNITTEST_PROJECT.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text.replace("self.assertEqual(double(0), 0)", "self.assertItemsEqual([double(0)], [0])"))
    (tmp_path / "conftest.py").write_text(
        "import unittest\n\nunittest.TestCase.assertItemsEqual = unittest.TestCase.assertCountEqual\n")
    task = load_project(str(tmp_path), "python -m pytest -q")
    files = {**read_project(tmp_path).files, "calc.py": "def double(x):\n    return x * 2\n"}
    feedback = job.judged(LocalSandbox().run(project_job(files, task.command, 60)), task.command, files, None)
    assert feedback["passed"], feedback
