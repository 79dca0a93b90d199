"""Bad input raises InputError before any model call or sandbox run."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doubles import ADD_TESTS, fenced, scripted

from codeheal import build_graph
from codeheal.context import resolve
from codeheal.errors import CodehealError, ConfigError, InputError


@pytest.mark.parametrize(("inputs", "expected"), [
    ({"task": "", "tests": ADD_TESTS}, "the task is empty"),
    ({"task": "  \n ", "tests": ADD_TESTS}, "the task is empty"),
    ({"task": "Add.", "tests": ""}, "the tests are empty"),
    ({"task": "Add.", "tests": "assert add(1, 2) == 3\ndef test_x(:\n    pass\n"}, "tests.py line 2:"),
    ({"task": "Add.", "tests": ADD_TESTS, "entry_point": "plus"}, "'plus' is never used by the tests"),
    ({"task": "Add.", "tests": ADD_TESTS, "entry_point": "add two"}, "is not a Python identifier"),
    ({"task": "Add.", "tests": "def helper():\n    return add(1, 2)\n"}, "no checks"),
    ({"task": "Add.", "tests": ADD_TESTS, "starting_code": 42}, "starting_code must be a string"),
])
def test_bad_input_is_refused_before_any_model_call(sandbox, inputs, expected):
    model = scripted(fenced("def add(a, b):\n    return a + b\n"))
    with pytest.raises(InputError, match=re.escape(expected)) as caught:
        build_graph(llm=model, sandbox=sandbox).compile().invoke(inputs)
    assert isinstance(caught.value, CodehealError)
    assert model.calls == [] and sandbox.jobs == []


def test_tests_syntax_error_shows_the_line_and_a_caret():
    with pytest.raises(InputError) as caught:
        build_graph(llm=scripted()).compile().invoke(
            {"task": "Add.", "tests": "assert add(1, 2) == 3\nassert add(1,, 2) == 3\n"})
    assert "assert add(1,, 2) == 3\n" in str(caught.value) and "^" in str(caught.value)


def test_async_path_refuses_bad_input_too():
    model = scripted()
    graph = build_graph(llm=model).compile()
    with pytest.raises(InputError, match="the task is empty"):
        asyncio.run(graph.ainvoke({"task": "", "tests": ADD_TESTS}))
    assert model.calls == []


def test_entry_point_the_tests_use_is_accepted():
    model = scripted(fenced("def add(a, b):\n    return a + b\n"))
    result = build_graph(llm=model).compile().invoke(
        {"task": "Add.", "tests": ADD_TESTS, "entry_point": "add"})
    assert result["status"] == "passed"
    assert "The tests call `add`" in model.prompt(0)


@pytest.mark.parametrize(("field", "value"), [
    ("max_attempts", 0), ("timeout_s", 0), ("sandbox", "docker"), ("temperature", 3.0),
])
def test_invalid_context_is_a_config_error(field, value):
    with pytest.raises(ConfigError, match=field):
        resolve({field: value})


@pytest.mark.parametrize(("argv", "expected"), [
    (["solve", "", "--tests", "{tests}"], "the task is empty"),
    (["solve", "add", "--tests", "missing.py"], "cannot read the tests file 'missing.py'"),
    (["solve", "Add.", "--tests", "{tests}", "--entry-point", "plus"], "'plus' is never used by the tests"),
    (["fix", "missing-project", "--test", "python -m pytest -q"], "missing-project: not a folder"),
    (["fix", "."], "no test command"),
])
def test_the_cli_refuses_bad_input_before_importing_the_graph(tmp_path, argv, expected):
    """The input checks come before the heavy imports (langgraph, langchain, the runner): an input
    error exits 2 in a fraction of a second, not after seconds of importing."""
    tests = tmp_path / "test_add.py"
    tests.write_text(ADD_TESTS, encoding="utf-8")
    argv = [a.replace("{tests}", str(tests)) for a in argv]
    probe = ("import sys\nfrom codeheal.cli import main\ncode = main(sys.argv[1:])\n"
             "print(code, sorted(m for m in ('langgraph', 'langchain_core', 'codeheal.runner') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert expected in done.stderr
    assert done.stdout.split(None, 1) == ["2", "[]\n"]


@pytest.mark.parametrize(("value", "expected"), [
    ("0", "deadline_s must be > 0 seconds, got 0.0"),
    ("-30", "deadline_s must be > 0 seconds, got -30.0"),
    ("soon", "argument --deadline: invalid float value: 'soon'"),
])
def test_a_bad_deadline_exits_2_before_any_model_call(tmp_path, value, expected):
    tests = tmp_path / "test_add.py"
    tests.write_text(ADD_TESTS, encoding="utf-8")
    # a model at an address nothing serves: a run that got as far as a model call would exit 3
    argv = ["solve", "Add.", "--tests", str(tests), "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
            "--deadline", value]
    here = str(Path(__file__).resolve().parents[2])  # this checkout's codeheal, whatever is installed
    done = subprocess.run([sys.executable, "-m", "codeheal", *argv], cwd=tmp_path, capture_output=True, text=True, check=False,
                          timeout=120, env={**os.environ, "PYTHONPATH": here})
    assert done.returncode == 2 and expected in done.stderr


def test_a_bad_deadline_in_pyproject_is_refused(tmp_path):
    from codeheal.config_file import load_config

    (tmp_path / "pyproject.toml").write_text("[tool.codeheal]\ndeadline = -1\n", encoding="utf-8")
    settings = load_config(tmp_path, command="fix").settings
    assert settings == {"deadline_s": -1}
    with pytest.raises(ConfigError, match="deadline_s must be > 0 seconds"):
        resolve(config=settings)
