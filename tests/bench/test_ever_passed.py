"""codeheal_bench/scripts/ever_passed.py: every run folder of a suite is read, per model, and a problem
counts as passed in some run, in at least half of them, or rarely, by its own runs; a record
copied into another folder is one run, and a line cut short by a killed run is skipped."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "codeheal_bench" / "scripts"))

from ever_passed import ever_passed  # noqa: E402

_STARTS = itertools.count()
"""Each run's start time: no two runs share one."""


def _record(model: str, task_id: str, passed: bool, started_at: float) -> dict:
    return {"model": model, "task_id": task_id, "hidden_passed": passed, "condition": "x", "started_at": started_at}


def _folder(root: Path, name: str, rows: list[tuple[str, str, bool]], extra: str = "") -> list[dict]:
    """A run folder of `rows` (model, task id, hidden passed), each a run of its own."""
    folder = root / name
    folder.mkdir()
    records = [_record(m, t, p, float(next(_STARTS))) for m, t, p in rows]
    (folder / "humaneval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records) + extra, encoding="utf-8")
    return records


def test_problems_are_counted_per_model_over_every_folder_of_the_suite(tmp_path: Path) -> None:
    shared = _folder(tmp_path, "humaneval-a", [("m1", "P/0", True), ("m1", "P/1", False), ("m2", "P/0", False)])
    _folder(tmp_path, "humaneval-b", [("m1", "P/1", False), ("m1", "P/1", False), ("m1", "P/1", False)]
            + [("m1", "P/1", False)] * 2 + [("m1", "P/1", True), ("m1", "P/2", False)],
            extra='{"model": "m1", "task_')  # a run killed mid-write
    copy = tmp_path / "humaneval-c"  # attempt 1 shared: a copy of humaneval-a's runs
    copy.mkdir()
    (copy / "humaneval.jsonl").write_text("".join(json.dumps(r) + "\n" for r in shared), encoding="utf-8")
    _folder(tmp_path, "mbpp-a", [("m1", "P/2", True)])  # another suite: not read
    summary = ever_passed(tmp_path, "humaneval")
    assert summary["m1"] == {
        "runs": 9, "problems": 3, "ever_passed": 2, "mostly_passed": 1,
        "rarely_passed": ["P/1"], "never_passed": ["P/2"],
    }
    assert summary["m2"] == {"runs": 1, "problems": 1, "ever_passed": 0, "mostly_passed": 0,
                             "rarely_passed": [], "never_passed": ["P/0"]}
