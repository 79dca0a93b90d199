"""The regression set is what runs: the tests whose run of the project as it is executed the
changed code, collected by pytest's own rules (a `python_files` pattern, doctests, a conftest
fixture, `importlib.import_module`), not the test files that import the changed module by name."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from codeheal import build_graph
from codeheal.context import resolve
from codeheal.forms.project.regression import changed_spans

SIZES = '''def is_small(n):
    """Whether `n` is a one-digit number.

    >>> is_small(10)
    False
    """
    return n < 10


def bucket(n):
    return "small" if is_small(n) else "large"
'''
WRONG = "```python\n# calc/sizes.py\ndef is_small(n):\n    return n <= 10\n```"
OTHERS = {
    "a python_files pattern and importlib": {
        "tests/check_sizes.py": "import importlib\n\n\ndef test_ten():\n"
                                "    assert not importlib.import_module('calc.sizes').is_small(10)\n"},
    "a conftest fixture": {
        "tests/conftest.py": "import importlib\n\nimport pytest\n\n\n@pytest.fixture\ndef small():\n"
                             "    return importlib.import_module('calc.sizes').is_small\n",
        "tests/test_fixture.py": "def test_ten(small):\n    assert not small(10)\n"},
    "a doctest": {},
}


def _project(tmp_path: Path, others: dict[str, str]) -> Path:
    files = {
        "pytest.ini": "[pytest]\npython_files = test_*.py check_*.py\naddopts = --doctest-modules\n",
        "calc/__init__.py": "", "calc/sizes.py": SIZES,
        "tests/test_bucket.py": "from calc.sizes import bucket\n\n\ndef test_ten_is_small():\n"
                                "    assert bucket(10) == 'small'\n",
        **others,
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return tmp_path


@pytest.mark.parametrize("through", OTHERS)
def test_a_change_that_breaks_a_test_that_ran_it_is_no_heal(through: str, tmp_path: Path) -> None:
    project = _project(tmp_path, OTHERS[through])
    model = GenericFakeChatModel(messages=iter([AIMessage(WRONG)] * 4))
    context = resolve({"max_attempts": 2, "reflect": False, "mutants": 0}).context
    result = build_graph(llm=model).compile().invoke(
        {"project": str(project), "test_command": "python -m pytest -q tests/test_bucket.py"}, context=context)
    assert result["status"] != "passed"
    last = result["history"][-1]["summary"]
    assert "other test(s) that ran the changed code" in last and "breaks" in last, last


def test_the_changed_spans_are_the_changed_functions_or_the_whole_module() -> None:
    fixed = SIZES.replace("n < 10", "n <= 10")
    assert changed_spans({"calc/sizes.py": SIZES}, {"calc/sizes.py": fixed}) == {"calc/sizes.py": [(2, 7)]}
    moved = "import os\n" + SIZES
    assert changed_spans({"calc/sizes.py": SIZES}, {"calc/sizes.py": moved}) == {"calc/sizes.py": [(1, 11)]}
