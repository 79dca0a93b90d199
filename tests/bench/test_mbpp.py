"""`codeheal-bench mbpp`: MBPP-format problems (made up here, in MBPP's file format) with one
visible assert; the real graph, sandbox and hidden asserts, a scripted server as the model."""

from __future__ import annotations

import ast
import asyncio
import json
import os
from pathlib import Path

import pytest
from scripted_openai import ScriptedServer

from codeheal.errors import ConfigError
from codeheal.evaluation.examples import task_checks
from codeheal_bench.cli import main
from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.humaneval import BenchConfig, chosen_problems, task_text
from codeheal_bench.mbpp import load_mbpp

ITEMS = [
    {"task_id": 5, "text": "Write a function to double a number.", "code": "def double(x):\n    return 2 * x",
     "test_setup_code": "", "test_list": ["assert double(1) == 2", "assert double(2) == 4", "assert double(0) == 0"],
     "challenge_test_list": []},
    {"task_id": 11, "text": "Write a function to check whether a number is even.",
     "code": "def check(n):\n    return n % 2 == 0", "test_setup_code": "",
     "test_list": ["assert check(4) == True", "assert check(7) == False", "assert check(0) == True"],
     "challenge_test_list": []},
    {"task_id": 12, "text": "Write a function to add the numbers of a list, skipping None.",
     "code": "def sum(items):\n    total = 0\n    for item in items:\n        total += item or 0\n    return total",
     "test_setup_code": "NUMBERS = [1, None, 2]",
     "test_list": ["assert sum(NUMBERS) == 3", "assert sum([]) == 0", "assert sum([None]) == 0"],
     "challenge_test_list": ["assert sum([5, None, -5, 1]) == 1"]},
    {"task_id": 13, "text": "Write a function to return the larger of two numbers.",
     "code": "def larger(a, b):\n    return a if a > b else b", "test_setup_code": "",
     "test_list": ["assert larger(1, 2) == 2", "assert larger(5, 3) == 5", "assert larger(4, 4) == 4"],
     "challenge_test_list": []},
]
# Passes the one visible assert, fails the hidden ones: the weak-test case.
WEAK_LARGER = "def larger(a, b):\n    return b\n"


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "mbpp.jsonl"
    path.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    return path


def test_only_the_test_split_loads_with_one_visible_assert_and_every_assert_hidden(data: Path) -> None:
    problems = {p.task_id: p for p in load_mbpp(data)}
    assert list(problems) == ["Mbpp/11", "Mbpp/12", "Mbpp/13"]  # task 5 is a prompt example, not a test
    summed = problems["Mbpp/12"]
    assert summed.entry_point == "sum"  # named after a builtin: the reference code says which
    assert summed.visible_tests == "NUMBERS = [1, None, 2]\nassert sum(NUMBERS) == 3\n"
    assert summed.hidden_test.count("assert candidate(") == 4 and "NUMBERS = [1, None, 2]" in summed.hidden_test
    assert "`sum`" in summed.task and "skipping None" in summed.task
    assert [p.task_id for p in load_mbpp(data, part="tuning")] == ["Mbpp/12"]
    assert [p.task_id for p in load_mbpp(data, limit=1, part="report")] == ["Mbpp/11"]


def test_skip_passes_over_the_first_problems_of_the_slice_before_the_limit(data: Path) -> None:
    def chosen(**changes: object) -> list[str]:
        config = BenchConfig(out_dir=data.parent, model="fake-coder", suite="mbpp", data=data, **changes)
        return [p.task_id for p in chosen_problems(config)]

    assert chosen(skip=1) == ["Mbpp/12", "Mbpp/13"]
    assert chosen(skip=1, limit=1) == ["Mbpp/12"]
    assert chosen(skip=1, limit=1, slice="report") == ["Mbpp/13"]
    for changes, message in (({"skip": -1}, "--skip must be >= 0"), ({"limit": 0}, "--limit must be >= 1"),
                             ({"skip": 3}, "--skip 3 passes over every one of the 3 problems")):
        with pytest.raises(ConfigError, match=message):
            chosen(**changes)


def test_the_hidden_asserts_judge_reference_and_weak_code_alike_for_every_entry_point_name(data: Path) -> None:
    problems = {p.task_id: p for p in load_mbpp(data)}
    for problem in problems.values():  # Mbpp/12's `sum` too: the entry point is the candidate's
        assert asyncio.run(hidden_verdict(problem, problem.canonical_solution)).passed, problem.task_id
    assert not asyncio.run(hidden_verdict(problems["Mbpp/12"], "def sum(items):\n    return 3\n")).passed
    # A function called `check` is still what is checked, not the hidden check itself.
    assert not asyncio.run(hidden_verdict(problems["Mbpp/11"], "def check(n):\n    return True\n")).passed
    assert not asyncio.run(hidden_verdict(problems["Mbpp/13"], WEAK_LARGER)).passed


def test_bad_data_is_refused_before_any_model_call(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("CODEHEAL_MBPP_FILE", raising=False)
    with pytest.raises(ConfigError, match="CODEHEAL_MBPP_FILE"):
        load_mbpp(None)
    with pytest.raises(ConfigError, match="cannot read"):
        load_mbpp(tmp_path / "missing.jsonl")
    (tmp_path / "other.jsonl").write_text('{"prompt": "x"}\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="not MBPP"):
        load_mbpp(tmp_path / "other.jsonl")
    (tmp_path / "train.jsonl").write_text(json.dumps(ITEMS[0]) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="none of MBPP's test problems"):
        load_mbpp(tmp_path / "train.jsonl")
    assert main(["mbpp", "--out", str(tmp_path / "out")]) == 2


def test_mbpp_run_writes_its_own_results_and_counts_weak_test_passes(tmp_path: Path, monkeypatch) -> None:
    data = tmp_path / "mbpp.jsonl"
    data.write_text("".join(json.dumps(item) + "\n" for item in ITEMS if item["task_id"] != 12), encoding="utf-8")
    references = {item["code"].split("(")[0].removeprefix("def "): item["code"] for item in ITEMS}

    def script(body: dict) -> str:
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        name = next(name for name in references if f"`{name}`" in text)
        code = WEAK_LARGER if name == "larger" else references[name]
        return f"```python\n{code}\n```\n"

    out = tmp_path / "out"
    monkeypatch.setenv("CODEHEAL_MBPP_FILE", str(data))
    with ScriptedServer(script) as fake:
        assert main(["mbpp", "--conditions", "sample_first", "--model", "fake-coder", "--base-url", fake.url,
                     "--out", str(out)]) == 0
    summary = json.loads((out / "mbpp.json").read_text())
    assert summary["suite"] == "mbpp" and summary["problems"] == 2
    for condition in ("one_shot", "sample_first"):
        result = summary["conditions"][condition]
        assert result["passed"] == 1 and result["visible_passed"] == 2  # the weak answer passes its one visible assert and is kept
        assert result["slices"]["report"]["visible_passed_hidden_failed"] == 1
    assert (out / "mbpp.md").read_text().startswith("# MBPP: ")
    assert not (out / "humaneval.json").exists()


def test_every_suite_a_run_may_name_has_the_report_s_words_for_it() -> None:
    from typing import get_args

    from codeheal_bench.humaneval import Suite
    from codeheal_bench.humaneval_report import SUITES

    assert set(get_args(Suite)) == set(SUITES)


@pytest.mark.skipif(not os.environ.get("CODEHEAL_MBPP_FILE"), reason="MBPP's data file is not shipped: set CODEHEAL_MBPP_FILE")
def test_mbpp_task_texts_add_no_task_check_so_the_recorded_runs_stay_comparable() -> None:
    """task_examples is on by default: MBPP's texts write no example beyond the visible assert."""
    for problem in load_mbpp(None):
        assert task_checks(task_text(problem), ast.parse(problem.visible_tests), [problem.entry_point]) == [], problem.task_id
