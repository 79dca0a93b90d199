"""`codeheal-bench quixbugs` on two programs, with a scripted OpenAI-compatible server in place
of the model: one healed, one not; results written, and a rerun resumes."""

from __future__ import annotations

import json

from quixbugs_data import quixbugs_or_skip
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal_bench.cli import main

BUCKETSORT_FIX = '''```python
# python_programs/bucketsort.py
def bucketsort(arr, k):
    counts = [0] * k
    for x in arr:
        counts[x] += 1

    sorted_arr = []
    for i, count in enumerate(counts):
        sorted_arr.extend([i] * count)

    return sorted_arr
```'''
GET_FACTORS_WRONG = '''```python
# python_programs/get_factors.py
def get_factors(n):
    return []
```'''


def script(body: dict) -> str:
    messages = body["messages"]
    if not is_fix_actor(messages):
        return "The loop iterates over the wrong list."
    text = "\n".join(str(m["content"]) for m in messages)
    return BUCKETSORT_FIX if "bucketsort" in text else GET_FACTORS_WRONG


def test_quixbugs_on_two_programs_writes_results_and_resumes(tmp_path, capsys):
    quixbugs_or_skip()
    argv = ["quixbugs", "--only", "bucketsort", "get_factors", "--max-attempts", "2",
            "--mutants", "0", "--model", "scripted", "--out", str(tmp_path)]
    with ScriptedServer(script) as server:
        assert main([*argv, "--base-url", server.url]) == 0
        calls = len(server.requests)
        assert main([*argv, "--base-url", server.url]) == 0
        assert len(server.requests) == calls, "a rerun skips the recorded programs"
    summary = json.loads((tmp_path / "quixbugs.json").read_text())
    rows = {row["program"]: row for row in summary["rows"]}
    assert summary["programs"] == 2 and summary["healed"] == 1
    assert rows["bucketsort"]["healed"] and rows["bucketsort"]["changed_lines"] == 2
    assert rows["bucketsort"]["files_changed"] == ["python_programs/bucketsort.py"]
    assert rows["bucketsort"]["attempts"] == 2 and not rows["get_factors"]["healed"]
    assert summary["median_changed_lines_healed"] == 2 and summary["only_program_touched"] == 2
    assert "| bucketsort | yes (model) | 2 | 0 | 2 |" in (tmp_path / "quixbugs.md").read_text()
    assert summary["whitespace_only_hunks"] == 0 and rows["bucketsort"]["whitespace_only_hunks"] == 0
    diffs = (tmp_path / "quixbugs.diff").read_text()
    assert "+    for i, count in enumerate(counts):" in diffs and "# get_factors: failed" in diffs
    assert len((tmp_path / "quixbugs.jsonl").read_text().splitlines()) == 2
