"""The QuixBugs report: the tuning programs and the others counted apart."""

from __future__ import annotations

from pathlib import Path

from codeheal import Context

from codeheal_bench.quixbugs_run import TUNING, QuixRecord, quixbugs_report
from codeheal_bench.report import write_report

DIFF = "--- a/p.py\n+++ b/p.py\n@@ -1,1 +1,1 @@\n-    return a > b\n+    return a >= b\n"


def record(program: str, healed: bool) -> QuixRecord:
    return QuixRecord(
        program=program, context={}, status="passed" if healed else "failed", healed=healed, attempts=2,
        changed_lines=2 if healed else 0, files_changed=["p.py"] if healed else [], only_program_touched=True,
        tokens=100, seconds=3.0, error=None, summaries=["passed 1/1" if healed else "failed 0/1 passed"],
        diff=DIFF if healed else "",
    )


def test_tuning_and_report_programs_are_counted_apart(tmp_path: Path) -> None:
    records = [record(TUNING[0], True), record(TUNING[1], False), record("kth", True), record("sqrt", False)]
    summary = write_report(tmp_path, quixbugs_report(records, Context(max_attempts=4, timeout_s=10)))
    assert (summary["healed"], summary["healed_tuning"], summary["programs_tuning"]) == (2, 1, 2)
    assert summary["median_changed_lines_healed"] == 2 and summary["whitespace_only_hunks"] == 0
    table = (tmp_path / "quixbugs.md").read_text()
    assert f"Tuning programs ({', '.join(TUNING)}): healed 1 of 2; the others: healed 1 of 2." in table


def test_each_model_is_held_to_its_own_targets(tmp_path: Path) -> None:
    records = [record(f"p{i}", True) for i in range(14)] + [record("q", False)]
    small = write_report(tmp_path / "small", quixbugs_report(records, Context(model="local-0.5b", max_attempts=4, timeout_s=10)))
    large = write_report(tmp_path / "large", quixbugs_report(records, Context(model="local-1.5b", max_attempts=4, timeout_s=10)))
    default = write_report(tmp_path / "default", quixbugs_report(records, Context(model="local", max_attempts=4, timeout_s=10)))
    assert (small["target_healed"], small["targets_met"]["healed"], small["target_seconds"]) == (12, True, 600)
    assert (large["target_healed"], large["targets_met"]["healed"], large["target_seconds"]) == (16, False, None)
    assert (default["target_healed"], default["target_seconds"]) == (16, None)  # "local" is the 1.5B model
    table = (tmp_path / "large" / "quixbugs.md").read_text()
    assert "Healed 14 of 15 (target 16: not met)" in table and "target at most 600 s" not in table
