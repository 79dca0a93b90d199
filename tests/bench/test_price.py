"""codeheal_bench/price.py and the HumanEval report's costs: price at a published API price
list (cached input cheaper than input, output dearer) and pass rates at equal wall time and
equal price, not only at equal tokens."""

from __future__ import annotations

import pytest

from codeheal_bench.humaneval_report import condition_breakdown, pass_rate_within
from codeheal_bench.price import PRICE_LIST, attempt_price, attempt_seconds


def attempt(tokens: int, prompt: int, completion: int, reused: int, seconds: float) -> dict:
    return {"tokens": tokens, "prompt_tokens": prompt, "completion_tokens": completion,
            "timings": {"prompt_reused": reused}, "seconds_model": seconds, "seconds_sandbox": 0.5}


def test_reused_prompt_tokens_are_billed_as_cached_input() -> None:
    cold = attempt(1100, 1000, 100, 0, 5.0)
    warm = attempt(1100, 1000, 100, 800, 2.0)
    expected_cold = (1000 * PRICE_LIST["input"] + 100 * PRICE_LIST["output"]) / 1e6
    expected_warm = (200 * PRICE_LIST["input"] + 800 * PRICE_LIST["cached_input"] + 100 * PRICE_LIST["output"]) / 1e6
    assert attempt_price(cold) == pytest.approx(expected_cold)
    assert attempt_price(warm) == pytest.approx(expected_warm) and attempt_price(warm) < attempt_price(cold)
    assert attempt_price({"prompt_tokens": 10, "completion_tokens": 0}) == pytest.approx(10 * PRICE_LIST["input"] / 1e6)


def test_equal_budgets_of_seconds_and_price_can_rank_runs_otherwise_than_tokens() -> None:
    # run a: two cheap, slow attempts; run b: one attempt with a long prompt read from cache
    slow = {"attempt_log": [attempt(300, 250, 50, 0, 20.0), attempt(300, 250, 50, 0, 20.0)],
            "hidden_by_attempt": [False, True]}
    cached = {"attempt_log": [attempt(2000, 1950, 50, 1900, 3.0)], "hidden_by_attempt": [True]}
    assert pass_rate_within([slow], 1000, 1) == 1.0 and pass_rate_within([cached], 1000, 1) == 0.0
    assert pass_rate_within([slow], 30, 1, attempt_seconds) == 0.0
    assert pass_rate_within([cached], 30, 1, attempt_seconds) == 1.0
    assert pass_rate_within([cached], 0.0002, 1, attempt_price) == 1.0


def record(task: str, condition: str, first: str, timings: dict, sandbox: float, rest: float) -> dict:
    return {"task_id": task, "condition": condition, "first_attempt": first, "timings": timings,
            "seconds_sandbox": sandbox, "seconds_rest": rest}


def test_a_conditions_breakdown_sums_its_records_and_counts_a_shared_attempt_1_once_per_condition() -> None:
    read = {"prompt_evaluated": 400, "prompt_reused": 74, "prompt_seconds": 8.0, "generation_seconds": 3.0}
    retry = {"prompt_evaluated": 100, "prompt_reused": 470, "prompt_seconds": 2.0, "generation_seconds": 5.0}
    nothing = dict.fromkeys(read, 0)
    one_shot = [record("A", "one_shot", "own", read, 0.5, 0.1), record("B", "one_shot", "own", read, 0.5, 0.1)]
    healing = [record("A", "adaptive", "shared", nothing, 0.4, 0.1), record("B", "adaptive", "shared", retry, 0.9, 0.2)]
    assert condition_breakdown(one_shot, one_shot) == {
        "prompt_evaluated": 800, "prompt_reused": 148, "prompt_seconds": 16.0, "generation_seconds": 6.0,
        "sandbox_seconds": 1.0, "overhead_seconds": 0.2}
    # attempt 1 is one_shot's model call: its reading and writing are the healing condition's too
    assert condition_breakdown(healing, one_shot) == {
        "prompt_evaluated": 900, "prompt_reused": 618, "prompt_seconds": 18.0, "generation_seconds": 11.0,
        "sandbox_seconds": 1.3, "overhead_seconds": 0.3}
    own = [record("A", "adaptive", "own", read, 0.5, 0.1)]
    assert condition_breakdown(own, one_shot)["prompt_evaluated"] == 400  # not shared: not added again
    older = [{**own[0], "timings": None}]  # records from before timings were kept
    assert condition_breakdown(older, [])["prompt_seconds"] == 0
