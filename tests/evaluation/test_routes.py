"""Which route judges the module form's tests (evaluation/routes.py) and what pytest collects
from them (checks.py): decided from the tests' text alone, before anything runs."""

from __future__ import annotations

import ast

import pytest

from codeheal.evaluation.checks import check_names, count_checks, watched_asserts
from codeheal.evaluation.routes import shared_reason


@pytest.mark.parametrize("tests", [
    "def test_a(capsys):\n    f()\n    assert capsys.readouterr().out == 'x'\n",
    "def test_a(caplog):\n    f()\n",
    "import pytest\n@pytest.fixture(autouse=True)\ndef frozen(monkeypatch):\n    pass\ndef test_a():\n    f()\n",
    "from unittest import mock\ndef test_a():\n    with mock.patch('os.getcwd'):\n        f()\n",
    "from unittest.mock import patch\n@patch('time.time', return_value=5)\ndef test_a(t):\n    f()\n",
    "import unittest.mock\ndef test_a():\n    m = unittest.mock.MagicMock()\n    f(m)\n",
    "import pytest\ndef test_a():\n    with pytest.warns(UserWarning):\n        f()\n",
    "import random\ndef test_a():\n    random.seed(1)\n    assert f() == 3\n",
    "import os\ndef test_a():\n    os.environ['X'] = '1'\n    assert f() == '1'\n",
    "import solution\ndef test_a():\n    solution.LIMIT = 3\n    assert f() == 3\n",
    "import asyncio\ndef test_a():\n    assert asyncio.run(f()) == 3\n",
    "async def test_a():\n    assert await f() == 3\n",
    "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        with self.assertLogs() as logs:\n            f()\n",
    "import pytest\n@pytest.mark.filterwarnings('error')\ndef test_a():\n    f()\n",
    "from hypothesis import given, strategies as st\n@given(st.integers())\ndef test_a(x):\n    assert f(x) == x\n",
])
def test_tests_that_use_the_test_process_s_own_tools_are_judged_there(tests: str) -> None:
    assert shared_reason(ast.parse(tests)) is not None


@pytest.mark.parametrize("tests", [
    "def test_a():\n    assert f(2) == 4\n",
    "import pytest\n@pytest.mark.parametrize('x', [1, 2])\ndef test_a(x, tmp_path):\n    assert f(x) > 0\n",
    "import pytest\ndef test_a():\n    with pytest.raises(ValueError, match='bad'):\n        f(-1)\n",
    "import datetime\ndef test_a():\n    assert f() == datetime.date(2024, 2, 29)\n",
])
def test_ordinary_tests_start_apart(tests: str) -> None:
    assert shared_reason(ast.parse(tests)) is None


def test_unittest_classes_of_any_name_are_checks_as_pytest_collects_them() -> None:
    tests = ast.parse(
        "import unittest\nfrom unittest import TestCase\n"
        "class BankAccountTest(unittest.TestCase):\n    def test_deposit(self):\n        assert deposit(1) == 1\n"
        "    def helper(self):\n        assert False\n"
        "class Base(TestCase):\n    pass\n"
        "class WithdrawSpec(Base):\n    def test_withdraw(self):\n        self.assertEqual(withdraw(1), 0)\n"
        "class Inherited(WithdrawSpec):\n    pass\n"
        "class AsyncCase(unittest.IsolatedAsyncioTestCase):\n    async def test_a(self):\n        pass\n"
        "class Helper:\n    def test_not_collected(self):\n        pass\n"
    )
    assert check_names(tests) == {"BankAccountTest", "WithdrawSpec", "Inherited", "AsyncCase"}  # Base has no tests: none collected
    assert count_checks(tests) == 4
    assert [w.test for w in watched_asserts(tests)] == ["BankAccountTest::test_deposit", None]
