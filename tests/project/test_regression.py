"""The regression check: a change that passes the named test file is no heal when it breaks a
test that passed on the project as it is in another test file that imports the changed module;
the screen's mutants and the model's repairs alike, and the run says what it checked."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from codeheal import build_graph
from codeheal.context import resolve
from codeheal.forms.project.regression import broken_tests, importers, regression_run
from codeheal.forms.project.task import parse_test_command

NAMED = "python -m pytest -q tests/test_bucket.py"
SIZES = '''def is_small(n):
    """Whether `n` is a one-digit number."""
    return n < 10


def bucket(n):
    """"small" for 0 to 10, else "large"."""
    return "small" if is_small(n) else "large"
'''
FIXED_BUCKET = '''```python
def bucket(n):
    """"small" for 0 to 10, else "large"."""
    return "small" if n <= 10 else "large"
```'''


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    """`bucket` is wrong at 10; `n <= 10` in `is_small`, which it calls, makes its test file
    pass and breaks is_small's own test file."""
    (tmp_path / "calc").mkdir()
    (tmp_path / "calc" / "__init__.py").write_text('from calc.sizes import bucket, is_small\n\n__all__ = ["bucket", "is_small"]\n')
    (tmp_path / "calc" / "sizes.py").write_text(SIZES)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_bucket.py").write_text(
        'from calc import bucket\n\n\ndef test_bucket():\n    assert bucket(3) == "small"\n    assert bucket(50) == "large"\n\n\n'
        'def test_ten_is_small():\n    assert bucket(10) == "small"\n')
    (tmp_path / "tests" / "test_sizes.py").write_text(
        'from calc.sizes import is_small\n\n\ndef test_one_digit():\n    assert is_small(9)\n\n\n'
        'def test_two_digits():\n    assert not is_small(10)\n')
    (tmp_path / "tests" / "test_other.py").write_text("def test_other():\n    assert True\n")
    return tmp_path


def heal(project: Path, replies: list[str], **settings) -> dict:
    model = GenericFakeChatModel(messages=iter([AIMessage(r) for r in replies]))
    context = resolve({"max_attempts": 2, "reflect": False, "regression": "importers", **settings}).context
    return build_graph(llm=model).compile().invoke({"project": str(project), "test_command": NAMED}, context=context)


def test_a_screen_heal_that_breaks_another_test_file_is_no_heal(calc: Path) -> None:
    result = heal(calc, ["no code here"] * 3)
    assert result["status"] == "failed"
    screen = result["history"][1]
    assert screen["tokens"] == 0 and not screen["passed"]
    assert ("the change breaks 1 test(s) that passed on the project as it is, in 1 other test file(s) that import "
            "the changed modules (tests/test_sizes.py): tests/test_sizes.py::test_two_digits") in screen["summary"]


def test_without_the_check_the_same_screen_heal_breaks_the_suite(calc: Path) -> None:
    # what the check prevents: the named file passes with is_small's boundary moved
    result = heal(calc, ["no code here"] * 3, regression="none")
    assert result["status"] == "passed" and "+    return n <= 10" in result["diff"]
    assert result["checked"] == "the test command only (regression check off)"


def test_a_repair_that_breaks_nothing_says_what_it_checked(calc: Path) -> None:
    result = heal(calc, [FIXED_BUCKET], mutants=0)
    assert result["status"] == "passed" and "n <= 10" in result["diff"]
    assert result["checked"] == ("1 other test file(s) that import the changed modules (tests/test_sizes.py): "
                                 "2 passed")
    assert result["history"][-1]["checked"] == result["checked"]


def test_the_whole_suite_is_checked_when_the_setting_says_so(calc: Path) -> None:
    result = heal(calc, ["no code here"] * 3, regression="suite")
    assert result["status"] == "failed"
    assert "in the whole suite: tests/test_sizes.py::test_two_digits" in result["history"][1]["summary"]


def test_a_failure_that_was_there_before_the_change_breaks_nothing(calc: Path) -> None:
    (calc / "tests" / "test_sizes.py").write_text(
        (calc / "tests" / "test_sizes.py").read_text() + "\n\ndef test_negative():\n    assert not is_small(-1)\n")
    result = heal(calc, [FIXED_BUCKET], mutants=0)
    # the run still says so: a heal of the named file that leaves an older failure in the suite
    assert result["status"] == "passed" and result["checked"].endswith(
        ": 2 passed; 1 failed before the change and still fails (tests/test_sizes.py::test_negative)")


def test_importers_are_found_through_packages_relative_imports_and_other_modules() -> None:
    files = {
        "pkg/__init__.py": "from .api import run\n",
        "pkg/api.py": "from . import helpers\n\ndef run():\n    return helpers.go()\n",
        "pkg/helpers.py": "def go():\n    return 1\n",
        "pkg/alone.py": "X = 1\n",
        "tests/test_api.py": "from pkg.api import run\n",
        "tests/test_package.py": "import pkg\n",
        "tests/test_alone.py": "from pkg import alone\n",
        "tests/conftest.py": "import pkg.helpers\n",
        "tests/test_nothing.py": "import os\n",
    }
    # `from pkg import alone` runs pkg/__init__, which imports api, which imports helpers
    assert importers(files, ["pkg/helpers.py"]) == ["tests/test_alone.py", "tests/test_api.py", "tests/test_package.py"]
    assert importers(files, ["pkg/alone.py"]) == ["tests/test_alone.py"]


def test_what_the_check_runs_by_setting_and_command() -> None:
    files = {"m.py": "", "tests/test_a.py": "import m\n", "tests/test_b.py": "import m\n", "tests/test_c.py": ""}
    named = parse_test_command("python -m pytest -q -k fast tests/test_a.py")
    run = regression_run(named, "importers", files, ["m.py"])
    assert run.command is not None and run.command.argv == ("python", "-m", "pytest", "-q", "-k", "fast", "tests/test_b.py")
    suite = regression_run(named, "suite", files, ["m.py"])
    assert suite.command is not None and suite.command.argv == ("python", "-m", "pytest", "-q", "-k", "fast")
    assert regression_run(parse_test_command("python -m pytest -q tests"), "importers", files, ["m.py"]).command is None
    assert regression_run(parse_test_command("python -m pytest -q"), "suite", files, ["m.py"]).command is None
    assert regression_run(named, "none", files, ["m.py"]).command is None
    assert regression_run(parse_test_command("make test"), "importers", files, ["m.py"]).covers.startswith(
        "the test command only (pytest is not visible")
    # a node id runs part of its file: the file is checked whole
    by_id = regression_run(parse_test_command("pytest tests/test_a.py::test_x"), "importers", files, ["m.py"])
    assert by_id.command is not None and by_id.command.argv[-2:] == ("tests/test_a.py", "tests/test_b.py")


def test_broken_tests_are_those_that_passed_before_and_do_not_now() -> None:
    before = {"passed": False, "error": None, "tests_ran": ["a", "b", "c"], "tests_failed": ["c"]}
    after = {"passed": False, "error": None, "tests_ran": ["a", "c"], "tests_failed": ["c"]}
    assert broken_tests(before, after) == ["b"]  # b no longer ran; c failed before


def test_a_test_the_defect_kept_from_loading_is_no_excuse() -> None:
    # cachetools: the defect raised while the test files were imported, so nothing ran as it
    # is; a "fix" that lets them load and fail is no heal
    before = {"passed": False, "error": "the tests could not be loaded: TypeError", "tests_ran": [], "tests_failed": []}
    after = {"passed": False, "error": None, "tests_ran": ["t::a", "t::b"], "tests_failed": ["t::b"]}
    assert broken_tests(before, after) == ["t::b"]
    crashed = {"passed": False, "error": "ImportError: no module", "tests_ran": [], "tests_failed": []}
    assert broken_tests(after, crashed) == ["t::a"]
    assert broken_tests({**after, "tests_failed": []}, crashed) == ["t::a", "t::b"]
    assert broken_tests({"passed": True, "error": None, "tests_ran": ["x"], "tests_failed": []},
                        {**crashed, "tests_ran": []}) == ["x"]
    assert broken_tests(before, crashed) == []  # it did not load before either
