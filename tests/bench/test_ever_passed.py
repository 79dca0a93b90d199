"""benchmarks/ever_passed.py: every run folder of a suite is read, per model, and a problem
counts as passed in some run, in at least half of them, or rarely, by its own runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from ever_passed import ever_passed  # noqa: E402


def _folder(root: Path, name: str, rows: list[tuple[str, str, bool]]) -> None:
    folder = root / name
    folder.mkdir()
    lines = [json.dumps({"model": m, "task_id": t, "hidden_passed": p, "condition": "x"}) for m, t, p in rows]
    (folder / "humaneval.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_problems_are_counted_per_model_over_every_folder_of_the_suite(tmp_path: Path) -> None:
    _folder(tmp_path, "humaneval-a", [("m1", "P/0", True), ("m1", "P/1", False), ("m2", "P/0", False)])
    _folder(tmp_path, "humaneval-b", [("m1", "P/1", False), ("m1", "P/1", False), ("m1", "P/1", False)]
            + [("m1", "P/1", False)] * 2 + [("m1", "P/1", True), ("m1", "P/2", False)])
    _folder(tmp_path, "mbpp-a", [("m1", "P/2", True)])  # another suite: not read
    summary = ever_passed(tmp_path, "humaneval")
    assert summary["m1"] == {
        "runs": 9, "problems": 3, "ever_passed": 2, "mostly_passed": 1,
        "rarely_passed": ["P/1"], "never_passed": ["P/2"],
    }
    assert summary["m2"] == {"runs": 1, "problems": 1, "ever_passed": 0, "mostly_passed": 0,
                             "rarely_passed": [], "never_passed": ["P/0"]}
