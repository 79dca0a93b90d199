"""The extraction-loss measure: lenient readings of a reply, and a reply whose solution the
module form's own reading loses, scored by the real hidden check."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from codeheal_bench.problems import load_problems

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "codeheal_bench" / "scripts"))

from extraction_loss import lenient_readings, measure, reply_kind  # noqa: E402

STUB = 'def add(a, b):\n    """The sum."""\n'


def test_a_cut_reply_is_trimmed_back_to_its_last_complete_statement():
    reply = "```python\ndef add(a, b):\n    return a + b\n\ndef sub(a, b):\n    return (a -"
    assert lenient_readings(reply)["trimmed"] == "def add(a, b):\n    return a + b\n"


def test_a_body_written_at_column_0_under_a_stub_is_indented_into_the_function():
    reply = f"```python\n{STUB}return a + b\n\ndef other():\n    pass\n"
    code = lenient_readings(reply)["reindented"]
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["add"](2, 3) == 5 and "other" in namespace


def test_readings_that_do_not_parse_are_left_out():
    assert lenient_readings("```python\ndef add(a, b:\n") == {}


def test_reply_kinds():
    assert reply_kind("def add(a, b): return a + b", "def add(a, b): return a + b") == "unfenced"
    assert reply_kind(f"```python\n{STUB}    return a + b\n", f"{STUB}    return a + b\n") == "fenced_parses"
    assert reply_kind(f"```python\n{STUB}return a + b\n", f"{STUB}return a + b\n") == "fenced_unparsable"


def test_a_solution_the_own_reading_loses_is_counted_as_lost():
    problem = next(p for p in load_problems(3) if p.task_id == "HumanEval/2")
    body = problem.canonical_solution.strip("\n")
    spliced = f"```python\n{problem.prompt.strip()}\n{body.strip()}\n"  # the body at column 0
    kept = f"```python\n{problem.prompt}{problem.canonical_solution}"
    record = {"condition": "one_shot", "task_id": problem.task_id,
              "attempt_log": [{"attempt": 1, "replies": [spliced, kept]}]}
    result = asyncio.run(measure([record], {problem.task_id: problem}))
    counts = result["all"]
    assert (counts["replies"], counts["own_passed"], counts["lost"], counts["rescued_by_reindented"]) == (2, 1, 1, 1)
    assert result["lost"][0]["reply"] == spliced


def test_a_function_written_again_inside_its_stub_is_lifted_out():
    reply = f"```python\n{STUB}    def add(a, b):\n        return a + b\n    return add(a, b) if False else None\n"
    code = lenient_readings(reply)["nested_hoisted"]
    namespace: dict = {}
    exec(code, namespace)
    assert namespace["add"](2, 3) == 5


def test_usage_that_runs_on_import_is_dropped_by_one_reading():
    reply = "```python\ndef add(a, b):\n    return a + b\n\nprint(add(1, None))\n```"
    assert lenient_readings(reply)["top_level_calls_dropped"].strip() == "def add(a, b):\n    return a + b"
