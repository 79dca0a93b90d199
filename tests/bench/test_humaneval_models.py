"""benchmarks/humaneval_models.py: the two models' HumanEval summaries joined, a condition
shown only once it ran on every problem."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import humaneval_models
from humaneval_models import RUNS, by_slices, joined

PAIR = {"local-0.5b": ("tuning-run", "report-run")}
"""A model whose default ran as two slice runs."""
SINGLE = {"local-1.5b": ("all-run",)}
"""A model whose default ran as one run of every problem."""


def write_run(results: Path, folder: str, model: str, finished: dict[str, int], problems: int = 4) -> None:
    conditions = {c: {"finished": n, "passed": n // 2, "pass_at_1": n / 2 / problems} for c, n in finished.items()}
    (results / folder).mkdir(parents=True)
    summary = {"problems": problems, "model": model, "max_attempts": 10, "conditions": conditions}
    (results / folder / "humaneval.json").write_text(json.dumps(summary))


ALL = {"one_shot": 4, "resample": 4, "raw_error": 4, "self_heal": 4, "sample_first": 4, "adaptive": 4}


def test_a_condition_not_run_on_every_problem_is_named_with_its_count_not_shown(tmp_path: Path) -> None:
    small, large = RUNS.items()
    write_run(tmp_path, small[1], small[0], {**ALL, "self_heal": 1, "sample_first": 0, "adaptive": 0})
    write_run(tmp_path, large[1], large[0], ALL)

    summary = joined(tmp_path)

    assert summary["problems"] == 4 and summary["default_policy"]
    assert list(summary["models"][small[0]]["conditions"]) == ["one_shot", "resample", "raw_error"]
    assert summary["models"][small[0]]["unfinished"] == {"self_heal": 1, "sample_first": 0, "adaptive": 0}
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


def write_slice(results: Path, folder: str, model: str, part: str, passed: dict[str, int], max_attempts: int = 3) -> None:
    conditions = {c: {"finished": 4, "passed": n, "wall_s": 10.0 * n, "slices": {
        "tuning": {"visible_passed_hidden_failed": 1 if part == "tuning" else 0},
        "report": {"visible_passed_hidden_failed": 2 if part == "report" else 0}}} for c, n in passed.items()}
    (results / folder).mkdir(parents=True)
    summary = {"problems": 4, "model": model, "max_attempts": max_attempts, "conditions": conditions}
    (results / folder / "humaneval.json").write_text(json.dumps(summary))


def test_the_defaults_slice_runs_are_joined_into_one_run_on_every_problem(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(humaneval_models, "SLICE_RUNS", PAIR)
    model, (tuning, report) = next(iter(PAIR.items()))
    assert by_slices(tmp_path) == {}, "no slice run here: nothing joined"
    write_slice(tmp_path, tuning, model, "tuning", {"one_shot": 2, "adaptive": 3, "resample": 1})
    with pytest.raises(SystemExit, match="missing"):
        by_slices(tmp_path)
    write_slice(tmp_path, report, model, "report", {"one_shot": 1, "adaptive": 4})

    joined_run = by_slices(tmp_path)[model]

    assert joined_run["problems"] == 8 and joined_run["max_attempts"] == 3
    assert list(joined_run["conditions"]) == ["one_shot", "adaptive"], "resample ran on one slice only"
    assert joined_run["conditions"]["adaptive"] == {
        "passed": 7, "pass_at_1": 0.875, "visible_passed_hidden_failed": 3, "wall_s": 70.0}


def test_slice_runs_at_other_settings_are_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(humaneval_models, "SLICE_RUNS", PAIR)
    model, (tuning, report) = next(iter(PAIR.items()))
    write_slice(tmp_path, tuning, model, "tuning", {"adaptive": 3})
    write_slice(tmp_path, report, model, "report", {"adaptive": 3}, max_attempts=10)
    with pytest.raises(SystemExit, match="one max_attempts"):
        by_slices(tmp_path)


def test_a_default_run_of_every_problem_is_taken_as_it_is(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(humaneval_models, "SLICE_RUNS", SINGLE)
    model, (folder,) = next(iter(SINGLE.items()))
    write_slice(tmp_path, folder, model, "report", {"one_shot": 2, "adaptive": 3})
    joined_run = by_slices(tmp_path)[model]
    assert joined_run["folders"] == [f"benchmarks/results/{folder}"] and joined_run["problems"] == 4
    assert joined_run["conditions"]["adaptive"] == {
        "passed": 3, "pass_at_1": 0.75, "visible_passed_hidden_failed": 2, "wall_s": 30.0}
