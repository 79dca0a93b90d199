"""Does the hidden check still judge the committed results as it did? Every distinct final code
in the committed HumanEval records (benchmarks/results/**/*.jsonl) re-scored by the current
hidden check (codeheal_bench.hidden, through `codeheal.aevaluate`), one at a time, against the
verdict its record holds. Writes benchmarks/results/rescore_hidden.json (or --out): the counts,
and every code whose verdict differs. `--only FOLDER` keeps the records under those result
folders (HumanEval's only: MBPP's problems need MBPP's data file).

    .venv/bin/python codeheal_bench/scripts/rescore_hidden.py
    .venv/bin/python codeheal_bench/scripts/rescore_hidden.py --only humaneval-1.5b-default --out FILE
"""

from __future__ import annotations

import argparse
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


async def rescore(only: list[str]) -> list[dict]:
    problems = {p.task_id: p for p in load_problems()}
    rows = []
    for (task_id, code), entry in recorded_verdicts().items():
        if task_id not in problems or only and not any(r.startswith(f"{folder}/") for r in entry["records"]
                                                        for folder in only):
            continue
        verdict = await hidden_verdict(problems[task_id], code)
        rows.append({"task_id": task_id, "code": code, "recorded": sorted(entry["recorded"]), "now": verdict.passed,
                     "error": verdict.error, "records": entry["records"]})
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", action="append", default=[], help="a results folder whose records to re-score")
    parser.add_argument("--out", type=Path, default=RESULTS / "rescore_hidden.json")
    args = parser.parse_args()
    result = summary(asyncio.run(rescore(args.only)))
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "differences"}))
