"""Visible tests mined from HumanEval prompts; the hidden check kept apart and run for real."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

from codeheal import example_checks
from codeheal.evaluation.examples import task_checks
from codeheal_bench.cli import parser
from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.humaneval import (
    BenchConfig,
    chosen_problems,
    condition_context,
    task_text,
)
from codeheal_bench.humaneval_report import wall_seconds
from codeheal_bench.problems import load_problems

PROBLEMS = {p.task_id: p for p in load_problems()}


def test_all_164_problems_load_and_every_one_has_a_visible_check_naming_its_entry_point():
    assert len(PROBLEMS) == 164
    sources = [p.visible_source for p in PROBLEMS.values()]
    assert sources.count("doctest") + sources.count("inline") + sources.count("none") == 164
    for problem in PROBLEMS.values():
        assert problem.entry_point in problem.visible_tests
        assert "def check(" not in problem.visible_tests


def test_doctest_output_stops_at_the_closing_quotes():
    assert PROBLEMS["HumanEval/2"].visible_tests == "assert truncate_number(3.5) == 0.5\n"
    assert PROBLEMS["HumanEval/2"].visible_source == "doctest"


def test_inline_examples_become_asserts_and_wrong_arithmetic_or_definitions_do_not():
    prompt = '''def tri(n):
    """tri(1) = 3
    tri(4) = 3
    Examples:
    tri(3) = [1, 3, 2, 8]
    tri(5) => 19 - 5 - 6 = 8
    tri(6) => 19 - 5 = 8
    tri(2) returns true.
    tri(x) ==> 5
    """
'''
    assert example_checks(prompt, "tri") == (
        ["assert tri(3) == [1, 3, 2, 8]", "assert tri(5) == 8", "assert tri(2) == True"], "inline"
    )


def test_prose_examples_become_asserts_in_the_signatures_order():
    prompt = '''def top(arr, k):
    """Return the k largest.
    Example 1:
        Input: arr = [3, 1, 2], k = 2
        Output: [2, 3]
    Example 2:
        Input:
            arr : [5]
            k : 1
        Output: [5]  # the only one
    For arr = [1, 2], k = 1 the output should be [2].
    for top([7, 8], 1) == [8]
    top([1, 1], 1) # => [1] (ties kept)
    top([4, 6], 1) -> 2 + 4 = 6
    top([4, 6], 2) -> 2 + 2 = 5
    """
'''
    assert example_checks(prompt, "top") == ([
        "assert top([7, 8], 1) == [8]",
        "assert top([1, 1], 1) == [1]",
        "assert top([4, 6], 1) == 6",
        "assert top([3, 1, 2], 2) == [2, 3]",
        "assert top([5], 1) == [5]",
        "assert top([1, 2], 1) == [2]",
    ], "inline")


def test_prose_examples_naming_no_parameter_or_no_literal_are_not_checks():
    prompt = '''def f(grid, capacity):
    """Input: grid = [[1]], bucket = 1
    Output: 1
    Input: grid = some_grid, capacity = 1
    Output: 2
    For N = 1000 the output should be "1".
    g(1) == 2
    """
'''
    assert example_checks(prompt, "f") == ([], "none")


def test_every_mined_check_holds_for_the_reference_but_humanevals_own_wrong_examples():
    wrong = set()
    for problem in PROBLEMS.values():
        for check in problem.visible_tests.splitlines():
            namespace: dict = {}
            exec(problem.reference, namespace)  # HumanEval's reference: trusted
            try:
                exec(check, namespace)
            except AssertionError:
                wrong.add(problem.task_id)
    assert wrong == {"HumanEval/47", "HumanEval/116", "HumanEval/148"}
    assert sum(p.visible_source == "none" for p in PROBLEMS.values()) == 10


def test_a_problem_without_examples_gets_only_an_import_and_existence_check():
    problem = PROBLEMS["HumanEval/38"]
    assert (problem.visible_source, problem.visible_count) == ("none", 0)
    assert problem.visible_tests == "assert callable(decode_cyclic)\n"


def test_hidden_check_passes_the_reference_and_fails_a_wrong_answer():
    problem = PROBLEMS["HumanEval/2"]
    right = asyncio.run(hidden_verdict(problem, problem.reference))
    wrong = asyncio.run(hidden_verdict(problem, "def truncate_number(number):\n    return 0.5\n"))
    assert right.passed and right.error is None
    assert not wrong.passed and "AssertionError" in wrong.error


def test_hidden_check_fails_code_that_exits_before_the_check_ends():
    problem = PROBLEMS["HumanEval/2"]
    wrong = "import sys\ndef truncate_number(number):\n    return 0.5\nsys.exit(0)\n"
    verdict = asyncio.run(hidden_verdict(problem, wrong))
    assert not verdict.passed and "no tests were collected" in verdict.error, verdict  # the import ended the run


def test_wall_time_is_the_union_of_the_runs_intervals():
    rows = [{"started_at": 0.0, "finished_at": 2.0}, {"started_at": 1.0, "finished_at": 3.0},
            {"started_at": 10.0, "finished_at": 11.0}]
    assert wall_seconds(rows) == 4.0


def test_max_checks_keeps_the_weak_test_problems_of_the_slice():
    args = parser().parse_args(["humaneval", "--slice", "tuning", "--max-checks", "1"])
    assert args.max_checks == 1
    weak = chosen_problems(BenchConfig(out_dir=Path("."), slice="tuning", max_checks=1))
    tuning = [p for p in PROBLEMS.values() if int(p.task_id.split("/")[1]) % 2 == 0]
    assert [p.task_id for p in weak] == [p.task_id for p in tuning if p.visible_count <= 1]
    assert 0 < len(weak) < len(tuning) and any(p.visible_count == 0 for p in weak)
    assert len(chosen_problems(BenchConfig(out_dir=Path("."), slice="tuning"))) == len(tuning)


def test_first_check_only_leaves_the_loop_one_assert_and_the_rest_to_the_task_text():
    args = parser().parse_args(["humaneval", "--first-check-only", "--no-task-examples"])
    assert (args.first_check_only, args.task_examples) == (True, False)
    assert parser().parse_args(["humaneval"]).task_examples is None  # the library's default
    config = BenchConfig(out_dir=Path("."), slice="tuning", first_check_only=True)
    for problem in chosen_problems(config):
        full = PROBLEMS[problem.task_id]
        assert problem.visible_tests == full.visible_tests.splitlines()[0] + "\n"
        assert problem.visible_count == min(full.visible_count, 1)
        # what the product's task_examples adds back is the rest of the prompt's examples
        added = task_checks(task_text(problem), ast.parse(problem.visible_tests), [problem.entry_point])
        assert [problem.visible_tests.strip(), *added] == full.visible_tests.splitlines(), problem.task_id
    assert not condition_context("sample_first", BenchConfig(out_dir=Path("."), task_examples=False)).module.task_examples
