"""The examples a task text writes are checked beside the user's tests (ModuleSettings.task_examples):
a candidate that passes one weak test but contradicts the task's own example is no pass. Judged
for real in the sandbox, driven by a scripted model."""

from __future__ import annotations

import ast
import io

import pytest
from doubles import ScriptedModel, fenced
from rich.console import Console
from scripted_openai import ScriptedServer

from codeheal import Context, build_graph
from codeheal.context import ModuleSettings
from codeheal.evaluation.examples import called_functions, task_checks, user_checks
from codeheal.runner import _Narrator, run_with_progress
from codeheal.state import State
from codeheal_bench.humaneval import task_text
from codeheal_bench.problems import load_problems

TASK = '''Write `clamp(x, low, high)`: x limited to the range [low, high].

>>> clamp(5, 0, 3)
3
>>> clamp(-2, 0, 3)
0
'''
TESTS = "assert clamp(1, 0, 3) == 1\n"
ONLY_UPPER = "def clamp(x, low, high):\n    return min(x, high)\n"
RIGHT = "def clamp(x, low, high):\n    return max(low, min(x, high))\n"


def checks(task: str, tests: str) -> list[str]:
    module = ast.parse(tests)
    return task_checks(task, module, called_functions(module))


def test_a_candidate_that_passes_the_tests_but_not_the_tasks_example_is_retried_with_it_shown() -> None:
    model = ScriptedModel(messages=iter([fenced(ONLY_UPPER), fenced(RIGHT)]))
    result = build_graph(llm=model).compile().invoke({"task": TASK, "tests": TESTS},
                                                     context=Context(policy="raw_error", max_attempts=3))
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert result["task_checks"] == ["assert clamp(5, 0, 3) == 3", "assert clamp(-2, 0, 3) == 0"]
    first, second = result["history"]
    assert (first["passed_count"], first["total"], second["total"]) == (2, 3, 3)
    assert "assert clamp(-2, 0, 3) == 0" in model.prompt(0)  # shown with the tests it is judged by
    assert "clamp(-2, 0, 3)" in model.prompt(1).split("assert clamp(-2, 0, 3) == 0", 1)[1]  # and its failure


def test_the_examples_are_checked_when_the_tests_import_the_function_from_solution() -> None:
    """`from solution import clamp` names the candidate's function as a bare call does: its
    examples in the task text are not skipped."""
    model = ScriptedModel(messages=iter([fenced(ONLY_UPPER), fenced(RIGHT)]))
    result = build_graph(llm=model).compile().invoke({"task": TASK, "tests": "from solution import clamp\n" + TESTS},
                                                     context=Context(policy="raw_error", max_attempts=3))
    assert result["task_checks"] == ["assert clamp(5, 0, 3) == 3", "assert clamp(-2, 0, 3) == 0"]
    assert (result["status"], result["attempts"]) == ("passed", 2)


def test_with_task_examples_off_the_users_tests_alone_decide() -> None:
    model = ScriptedModel(messages=iter([fenced(ONLY_UPPER)]))
    result = build_graph(llm=model).compile().invoke(
        {"task": TASK, "tests": TESTS},
        context=Context(policy="raw_error", max_attempts=3, module=ModuleSettings(task_examples=False)))
    assert (result["status"], result["attempts"], result["task_checks"]) == ("passed", 1, [])


@pytest.mark.parametrize(("code", "failed", "note"), [(RIGHT, 1, True), (ONLY_UPPER, 2, False)])
def test_a_run_failed_by_the_tasks_examples_alone_says_so(code: str, failed: int, note: bool) -> None:
    """A task whose example is wrong fails every attempt: the end says that the user's tests
    pass and how to turn the examples off; not when the user's tests fail too."""
    wrong = TASK.replace("clamp(5, 0, 3)\n3", "clamp(5, 0, 3)\n4")
    tests = TESTS + "assert clamp(-1, 0, 3) == 0\n"
    model = ScriptedModel(messages=iter([fenced(code)] * 8))
    chunks = list(build_graph(llm=model).compile().stream(
        {"task": wrong, "tests": tests}, context=Context(policy="raw_error", max_attempts=2),
        stream_mode=["custom", "values"]))
    result = [values for mode, values in chunks if mode == "values"][-1]
    (status,) = [event for mode, event in chunks if mode == "custom" and event["kind"] == "status"]
    assert result["status"] != "passed"
    assert {a.get("task_checks_failed") for a in result["history"]} == {failed}
    expected = "passes your tests and fails 1 example(s) from the task text"
    assert (expected in status.get("note", "")) is note
    out = io.StringIO()
    _Narrator(Console(file=out, width=400), Context(), reflects=False).on_event(status)
    assert ("--no-task-examples" in out.getvalue()) is note


def test_the_runs_result_carries_its_end_note_where_json_prints_it(tmp_path) -> None:
    wrong = TASK.replace("clamp(5, 0, 3)\n3", "clamp(5, 0, 3)\n4")
    settings = {"policy": "raw_error", "max_attempts": 2}
    with ScriptedServer(lambda body: fenced(RIGHT)) as server:
        settings |= {"model": "scripted", "base_url": server.url}
        quiet = Console(file=io.StringIO())
        failed = run_with_progress({"task": wrong, "tests": TESTS}, settings, "wrong", quiet,
                                   checkpointer=str(tmp_path / "runs.sqlite"))
        passed = run_with_progress({"task": TASK, "tests": TESTS}, settings, "right", quiet,
                                   checkpointer=str(tmp_path / "runs.sqlite"))
    assert failed["status"] == "failed" and "fails 1 example(s) from the task text" in failed["note"]
    assert passed["status"] == "passed" and "note" not in passed


def test_an_example_whose_call_the_tests_already_check_is_left_to_the_test() -> None:
    assert checks(TASK, "assert clamp(5, 0, 3) == 5\n") == ["assert clamp(-2, 0, 3) == 0"]
    assert checks(TASK, "def test_both():\n    assert clamp(5, 0, 3) == 3\n    assert clamp(-2, 0, 3) == 0\n") == []


@pytest.mark.parametrize(("task", "expected"), [
    ("Add them.\n\nExample:\n    add(2, 3) == 5\n", ["assert add(2, 3) == 5"]),
    ("Add them. For example:\nadd(2, 3) returns 5\nadd(-1, 1) => 0\n", ["assert add(2, 3) == 5", "assert add(-1, 1) == 0"]),
    ("Add them.\nInput: 2, 3\nOutput: 5\n", ["assert add(2, 3) == 5"]),
    # a whole number that ends a sentence is that number, in every form; a decimal stays one
    ("Add them.\nadd(2, 3) should return 5.\nadd(-1, -2) returns -3.\nadd(1, 1.5) returns 2.5.\n",
     ["assert add(2, 3) == 5", "assert add(-1, -2) == -3", "assert add(1, 1.5) == 2.5"]),
    ("Add them.\nInput: 2, 3\nOutput: 5.\n", ["assert add(2, 3) == 5"]),
    ("```python\ndef add(a, b):\n    ...\n```\nFor a = 1, b = 1 the output should be 2.\n", ["assert add(1, 1) == 2"]),
    # the separator after a comment's `#`
    ("Add them.\n```python\nadd(2, 3)  # -> 5\nadd(1, 1)  # == 2\nadd(0, 1)  # returns 1\n```\n",
     ["assert add(2, 3) == 5", "assert add(1, 1) == 2", "assert add(0, 1) == 1"]),
    # named arguments in the signature's order, the signature read from a stub among prose
    ("Complete it:\n```python\ndef add(a: int, b: int) -> int:\n    ...\n```\nFor b = 3, a = 2 the output should be 5\n",
     ["assert add(2, 3) == 5"]),
    ("Add them.\nFor c = 3 the output should be 5\n", []),  # no parameter of that name
    ("Add them, as in total(2, 3) == 5.\n", []),  # another function's example is not add's
    ("Add them.\n>>> add(x, 3)\n5\n", []),  # not literal arguments
    ("Add them.\n>>> print(add(2, 3))\n5\n", []),
])
def test_the_example_forms_read_and_those_refused(task: str, expected: list[str]) -> None:
    assert checks(task, "assert add(0, 0) == 0\n") == expected


def test_the_function_is_the_one_the_tests_call_not_a_builtin_import_or_their_own_helper() -> None:
    tests = ("from math import isclose\n\ndef near(a, b):\n    return isclose(a, b)\n\n"
             "def test_mean():\n    xs = [1, 2]\n    assert near(mean(xs), 1.5) and len(xs) == 2\n")
    assert called_functions(ast.parse(tests)) == ["mean"]


def test_the_checks_run_after_the_users_tests_so_their_line_numbers_are_kept() -> None:
    state = State(tests=TESTS, task_checks=["assert clamp(5, 0, 3) == 3"])
    assert user_checks(state) == TESTS + "assert clamp(5, 0, 3) == 3\n"
    assert user_checks(State(tests=TESTS, task_checks=[])) == TESTS


def test_the_humaneval_harness_runs_what_it_ran_before_its_visible_tests_are_these_checks() -> None:
    """The benchmark's visible tests are the prompt's examples, so the product adds none: every
    recorded run stays comparable."""
    for problem in load_problems():
        tests = ast.parse(problem.visible_tests)
        assert task_checks(task_text(problem), tests, [problem.entry_point]) == [], problem.task_id


def test_a_fence_right_below_a_docstring_is_still_read() -> None:
    """doctest refuses a whole text when an example's output is followed by a less indented line."""
    task = f"```python\ndef clamp(x, low, high):\n    \"\"\"Limit x.\n    >>> clamp(5, 0, 3)\n    3\n    \"\"\"\n```\n\n{TASK}"
    assert checks(task, TESTS) == ["assert clamp(5, 0, 3) == 3", "assert clamp(-2, 0, 3) == 0"]


def test_the_progress_says_how_many_examples_it_checks_and_how_to_turn_them_off() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context(), reflects=False)
    narrator.on_event({"kind": "run_started", "first": "model", "files": 0, "task_checks": 2})
    narrator.on_event({"kind": "run_started", "first": "model", "files": 0, "task_checks": 0})
    assert out.getvalue().count("also checking 2 example(s) from the task text (--no-task-examples") == 1
    assert out.getvalue().count("example") == 2
