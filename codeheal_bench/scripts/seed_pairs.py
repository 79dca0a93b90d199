"""Read presets run on common random numbers: the same conditions at two or more seeds
(`codeheal-bench humaneval --seed N`, one folder per seed). Per condition, its hidden passes at
each seed and how many problems change outcome from seed to seed (the sampling noise that an
unseeded comparison carries); per pair of conditions, at each seed, the problems only one of
them passes (the paired difference) and those on which both wrote the same code at every
attempt (where their samples are shared). Writes one JSON file and prints a table:

    .venv/bin/python codeheal_bench/scripts/seed_pairs.py benchmarks/results/humaneval-tuning-0.5b-seed1 \
        benchmarks/results/humaneval-tuning-0.5b-seed2 --out benchmarks/results/seed_pairs-0.5b.json
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path


def records(folder: Path, suite: str) -> dict[tuple[str, str], dict]:
    """A run folder's records by (condition, task id)."""
    lines = (folder / f"{suite}.jsonl").read_text(encoding="utf-8").splitlines()
    return {(r["condition"], r["task_id"]): r for r in map(json.loads, lines)}


def written(record: dict) -> list[tuple]:
    """What a run wrote and met, attempt by attempt: the code's hash and the failure."""
    return [(a.get("code_sha"), a.get("summary")) for a in record["attempt_log"]]


def compare(folders: list[Path], suite: str) -> dict:
    runs = [records(folder, suite) for folder in folders]
    conditions = sorted({c for run in runs for c, _ in run}, key=lambda c: (c != "one_shot", c))
    problems = sorted(set.intersection(*({t for _, t in run} for run in runs)))

    def passed(run: dict, condition: str) -> set[str]:
        return {t for t in problems if run[(condition, t)]["hidden_passed"]}

    per_condition = {}
    for condition in conditions:
        passes = [passed(run, condition) for run in runs]
        changed = set.union(*passes) - set.intersection(*passes)
        seconds = [round(sum(run[(condition, t)]["seconds_model"] for t in problems)) for run in runs]
        per_condition[condition] = {"hidden_passed": [len(p) for p in passes], "changed_between_seeds": len(changed),
                                    "seconds_model": seconds}
    pairs = {}
    for a, b in itertools.combinations(conditions, 2):
        rows = []
        for run in runs:
            pa, pb = passed(run, a), passed(run, b)
            same = sum(written(run[(a, t)]) == written(run[(b, t)]) for t in problems)
            rows.append({"only_" + a: len(pa - pb), "only_" + b: len(pb - pa), "same_code_every_attempt": same})
        pairs[f"{a} vs {b}"] = rows
    return {"folders": [str(f) for f in folders], "suite": suite, "problems": len(problems),
            "conditions": per_condition, "pairs": pairs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="one run folder per seed")
    parser.add_argument("--suite", default="humaneval", help="the records' name (humaneval, mbpp)")
    parser.add_argument("--out", type=Path, required=True, help="the JSON file to write")
    args = parser.parse_args()
    result = compare(args.folders, args.suite)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"{result['problems']} problems, seeds as folders: {', '.join(f.name for f in args.folders)}")
    for condition, row in result["conditions"].items():
        print(f"{condition:<13} hidden {row['hidden_passed']}  changed between seeds {row['changed_between_seeds']}"
              f"  model seconds {row['seconds_model']}")
    for pair, rows in result["pairs"].items():
        print(f"{pair:<28} " + "  ".join(" / ".join(str(v) for v in row.values()) for row in rows))


if __name__ == "__main__":
    main()
