"""Does the hidden check still judge the committed results as it did? Every distinct final code
in the committed HumanEval records (benchmarks/results/**/*.jsonl) re-scored by the current
hidden check (codeheal_bench.hidden, through `codeheal.aevaluate`), one at a time, against the
verdict its record holds. Writes benchmarks/results/rescore_hidden.json: the counts, and every
code whose verdict differs.

    .venv/bin/python codeheal_bench/scripts/rescore_hidden.py
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.problems import load_problems

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"


def recorded_verdicts(results: Path = RESULTS) -> dict[tuple[str, str], dict]:
    """Each distinct (task id, final code) of the records, with its recorded verdicts and records."""
    found: dict[tuple[str, str], dict] = {}
    for path in sorted(results.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if {"task_id", "code", "hidden_passed"} <= set(record):
                entry = found.setdefault((record["task_id"], record["code"]), {"recorded": set(), "records": []})
                entry["recorded"].add(record["hidden_passed"])
                entry["records"].append(f"{path.relative_to(results)} {record.get('condition', '')}".strip())
    return found


def summary(rows: list[dict]) -> dict:
    """The counts of `rows` (task_id, code, recorded, now, error, records) and those that differ."""
    differ = [r for r in rows if r["recorded"] != [r["now"]]]
    return {
        "codes": len(rows), "records": sum(len(r["records"]) for r in rows),
        "same": len(rows) - len(differ), "different": len(differ),
        "records_different": sum(len(r["records"]) for r in differ),
        "differences": differ,
    }


async def rescore() -> list[dict]:
    problems = {p.task_id: p for p in load_problems()}
    rows = []
    for (task_id, code), entry in recorded_verdicts().items():
        verdict = await hidden_verdict(problems[task_id], code)
        rows.append({"task_id": task_id, "code": code, "recorded": sorted(entry["recorded"]), "now": verdict.passed,
                     "error": verdict.error, "records": entry["records"]})
    return rows


if __name__ == "__main__":
    result = summary(asyncio.run(rescore()))
    (RESULTS / "rescore_hidden.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "differences"}))
