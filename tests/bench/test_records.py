"""One records class for every benchmark: appended as results finish, read back on a resume, and
a record written with other settings refused."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

from codeheal import Context, settings_of
from codeheal.errors import ConfigError

from codeheal_bench.records import Records


def by_condition(path: Path, wanted: dict) -> Records:
    return Records(path, key=lambda r: (r["condition"], r["task_id"]), settings_of=lambda r: wanted[r["condition"]])


def test_a_benchmark_resume_refuses_any_other_setting(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    ran = asdict(Context(model="local", timeout_s=10.0))
    path.write_text(json.dumps({"condition": "one_shot", "task_id": "HumanEval/0", "context": ran}) + "\n")
    assert ("one_shot", "HumanEval/0") in by_condition(path, {"one_shot": ran})
    with pytest.raises(ConfigError, match=r"timeout_s 10.0 \(now 20.0\)"):
        by_condition(path, {"one_shot": {**ran, "timeout_s": 20.0}})


def test_records_are_appended_as_they_finish_and_read_back_skipping_a_line_cut_short(tmp_path: Path) -> None:
    path = tmp_path / "out" / "quixbugs.jsonl"
    records = Records(path, key=lambda r: r["program"], settings_of=lambda r: {"model": "m"})
    records.add({"program": "kth", "context": {"model": "m"}, "healed": True})
    records.add({"program": "sqrt", "context": {"model": "m"}, "healed": False})
    with path.open("a") as out:
        out.write('{"program": "wrap", "cont')  # a run killed mid-write
    again = Records(path, key=lambda r: r["program"], settings_of=lambda r: {"model": "m"})
    assert [r["program"] for r in again] == ["kth", "sqrt"] and len(again) == 2
    assert again["kth"]["healed"] and again.get("wrap") is None
    with pytest.raises(ConfigError, match=r"quixbugs.jsonl line 1 \(kth\).*model 'm' \(now 'other'\)"):
        Records(path, key=lambda r: r["program"], settings_of=lambda r: {"model": "other"})


def test_a_record_older_than_a_setting_ran_with_its_value_from_before_and_no_other(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    now = settings_of(Context(model="local", timeout_s=10.0))
    before = {k: v for k, v in now.items() if k != "hedge"}  # written before Policy.hedge existed
    path.write_text(json.dumps({"condition": "one_shot", "task_id": "HumanEval/0", "context": before}) + "\n")
    assert ("one_shot", "HumanEval/0") in by_condition(path, {"one_shot": now})
    with pytest.raises(ConfigError, match=r"hedge False \(now True\)"):
        by_condition(path, {"one_shot": {**now, "hedge": True}})
