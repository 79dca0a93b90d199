"""benchmarks/humaneval_models.py: the two models' HumanEval summaries joined, a condition
shown only once it ran on every problem."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from humaneval_models import RUNS, joined


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
