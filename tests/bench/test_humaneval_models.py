"""codeheal_bench/scripts/humaneval_models.py: the two models' HumanEval summaries joined, a condition
shown only once it ran on every problem."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "codeheal_bench" / "scripts"))

from humaneval_models import RUNS, SUITE_RUNS, TIEBREAK_RUNS, both_winner, joined, tiebreak_run

from codeheal.settings.presets import MODULE_POLICIES


def write_run(results: Path, folder: str, model: str, finished: dict[str, int], problems: int = 4,
              tuning: dict[str, int] | None = None, seconds: dict[str, float] | None = None,
              suite: str = "humaneval") -> None:
    """A run's summary: per condition the problems finished, its hidden passes on the tuning
    slice (`tuning`, else 1) and its seconds (`seconds`, else 10)."""
    conditions = {c: {"finished": n, "passed": n // 2, "pass_at_1": n / 2 / problems,
                      "wall_s": (seconds or {}).get(c, 10.0), "slices": {"tuning": {"passed": (tuning or {}).get(c, 1)}}}
                  for c, n in finished.items()}
    (results / folder).mkdir(parents=True)
    summary = {"problems": problems, "model": model, "max_attempts": 10, "conditions": conditions}
    (results / folder / f"{suite}.json").write_text(json.dumps(summary))


ALL = {"one_shot": 4, "resample": 4, "raw_error": 4, "self_heal": 4, "sample_first": 4, "adaptive": 4, "hedged": 4}


def test_a_condition_not_run_on_every_problem_is_named_with_its_count_not_shown(tmp_path: Path) -> None:
    small, large = RUNS.items()
    write_run(tmp_path, small[1], small[0], {**ALL, "self_heal": 1, "sample_first": 0, "adaptive": 0, "hedged": 0})
    write_run(tmp_path, large[1], large[0], ALL)

    summary = joined(tmp_path)

    assert summary["problems"] == 4
    assert summary["default_policy"] == {model: MODULE_POLICIES[model] for model in RUNS}
    assert list(summary["models"][small[0]]["conditions"]) == ["one_shot", "resample", "raw_error"]
    assert summary["models"][small[0]]["unfinished"] == {"self_heal": 1, "sample_first": 0, "adaptive": 0, "hedged": 0}
    assert list(summary["models"][large[0]]["conditions"]) == list(ALL)
    assert summary["models"][large[0]]["unfinished"] == {}


def test_runs_of_another_model_or_other_problems_are_refused(tmp_path: Path) -> None:
    small, large = RUNS.items()
    write_run(tmp_path, small[1], "gpt-4o-mini", ALL)
    write_run(tmp_path, large[1], large[0], ALL)
    with pytest.raises(SystemExit, match="gpt-4o-mini"):
        joined(tmp_path)

    other = tmp_path / "other"
    write_run(other, small[1], small[0], ALL)
    write_run(other, large[1], large[0], ALL, problems=5)
    with pytest.raises(SystemExit, match="different problems"):
        joined(other)


def test_each_model_names_its_default_and_the_retry_condition_that_won_its_tuning_slice(tmp_path: Path) -> None:
    small, large = RUNS.items()
    # one_shot is no retry condition; of two equal winners the faster is named
    write_run(tmp_path, small[1], small[0], ALL, tuning={"one_shot": 9, "resample": 5, "self_heal": 5, "adaptive": 4},
              seconds={"resample": 30.0, "self_heal": 20.0})
    write_run(tmp_path, large[1], large[0], {"one_shot": 4, "adaptive": 3})

    models = joined(tmp_path)["models"]

    assert models[small[0]]["tuning_winner"] == "self_heal"
    assert models[large[0]]["tuning_winner"] is None, "no retry condition finished"
    assert models[small[0]]["default"] == MODULE_POLICIES[small[0]]


def test_the_default_rule_sums_the_tuning_slices_of_both_benchmarks(tmp_path: Path) -> None:
    model = "local-1.5b"
    for suite, runs in SUITE_RUNS.items():
        for each, folder in runs.items():
            tuning = ({"resample": 10, "sample_first": 9, "self_heal": 1} if suite == "humaneval"
                      else {"resample": 2, "sample_first": 4, "self_heal": 9})
            # self_heal wins MBPP by most, but is unfinished on HumanEval: it is not a candidate
            finished = {**ALL, "self_heal": 4 if suite == "mbpp" else 2}
            write_run(tmp_path, folder, each, finished, tuning=tuning, suite=suite)
    suites = {suite: joined(tmp_path, suite) for suite in SUITE_RUNS}
    assert suites["humaneval"]["models"][model]["tuning_winner"] == "resample"
    assert suites["mbpp"]["models"][model]["tuning_winner"] == "self_heal"
    assert both_winner(suites, model) == "sample_first"  # 13 against resample's 12


def test_a_tie_on_both_tuning_slices_is_decided_by_the_further_problems_of_the_tiebreak_run(tmp_path: Path) -> None:
    model = "local-0.5b"
    for suite, runs in SUITE_RUNS.items():
        for each, folder in runs.items():
            tuning = ({"raw_error": 6, "sample_first": 7} if suite == "humaneval"
                      else {"raw_error": 4, "sample_first": 3})
            write_run(tmp_path, folder, each, ALL, tuning=tuning, suite=suite,
                      seconds={"raw_error": 5.0, "sample_first": 50.0})
    suites = {suite: joined(tmp_path, suite) for suite in SUITE_RUNS}
    assert both_winner(suites, model) == "raw_error", "10 each: the fewer seconds without a tie-break run"

    # the tie-break run's 8 problems: its first 4 are MBPP's (raw_error 4, sample_first 3 there)
    write_run(tmp_path, TIEBREAK_RUNS[model], model, {"one_shot": 8, "raw_error": 8, "sample_first": 8},
              problems=8, tuning={"raw_error": 5, "sample_first": 5}, suite="mbpp")
    tiebreak = tiebreak_run(model, tmp_path)
    assert both_winner(suites, model, tiebreak) == "sample_first", "2 further passes against raw_error's 1"

    other = tmp_path / "other"
    write_run(other, TIEBREAK_RUNS[model], model, {"one_shot": 8, "raw_error": 8, "sample_first": 5},
              problems=8, tuning={"raw_error": 5, "sample_first": 5}, suite="mbpp")
    assert both_winner(suites, model, tiebreak_run(model, other)) == "raw_error", "sample_first unfinished there"
    assert tiebreak_run("local-1.5b", tmp_path) is None
