"""How far any selection among what a model has written could go: over every run of a suite in
the results folders (every condition, seed, budget and code version run so far), per model, the
problems whose final code passed the hidden tests in at least one run, how many in at least half
of the runs that tried them, and which rarely (in fewer than RARE of those runs). A hidden test
never changes, so runs of older code count alike. A record copied into another folder (attempt 1
shared through one_shot's records) is one run, counted once. Writes one JSON file and prints a
line per model:

    .venv/bin/python codeheal_bench/scripts/ever_passed.py --out benchmarks/results/ever_passed-humaneval.json
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
RARE = 0.2


def json_lines(path: Path) -> list[dict]:
    """The records of a JSON-lines file (none when it is missing). A line that does not parse,
    the last one of a run killed mid-write, is skipped, as codeheal_bench.records skips it."""
    if not path.exists():
        return []
    records = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def read_runs(results: Path, suite: str) -> list[dict]:
    """Every run record of the suite's folders, each once: a record copied into another folder
    (same model, problem, condition and start) is one run."""
    runs = {}
    for path in sorted(results.glob(f"{suite}*/{suite}.jsonl")):
        for record in json_lines(path):
            runs[(record["model"], record["task_id"], record["condition"], record["started_at"])] = record
    return list(runs.values())


def ever_passed(results: Path, suite: str) -> dict[str, dict]:
    """Per model: runs read, problems tried, problems passed in some run and in at least half
    of their runs, those passed in fewer than RARE of their runs, and those never passed."""
    runs = read_runs(results, suite)
    tried: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    passed: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for record in runs:
        tried[record["model"]][record["task_id"]] += 1
        passed[record["model"]][record["task_id"]] += bool(record["hidden_passed"])
    return {
        model: {
            "runs": sum(counts.values()),
            "problems": len(counts),
            "ever_passed": sum(1 for t in counts if passed[model][t]),
            "mostly_passed": sum(1 for t in counts if passed[model][t] >= counts[t] / 2),
            "rarely_passed": sorted(t for t in counts if 0 < passed[model][t] < RARE * counts[t]),
            "never_passed": sorted(t for t in counts if not passed[model][t]),
        }
        for model, counts in sorted(tried.items())
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="humaneval", help="humaneval or mbpp (default humaneval)")
    parser.add_argument("--results", type=Path, default=RESULTS, help=f"results folder (default {RESULTS})")
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = parser.parse_args()
    summary = ever_passed(args.results, args.suite)
    args.out.write_text(json.dumps({"suite": args.suite, "rare_below": RARE, "models": summary}, indent=1) + "\n",
                        encoding="utf-8")
    for model, s in summary.items():
        print(f"{model}: {s['runs']} runs of {s['problems']} problems; passed in some run: {s['ever_passed']}, "
              f"in at least half of their runs: {s['mostly_passed']}, "
              f"rarely (in fewer than {RARE:.0%} of them): {len(s['rarely_passed'])}; never: {len(s['never_passed'])}")


if __name__ == "__main__":
    main()
