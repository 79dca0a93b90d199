"""Join the embedded models' HumanEval runs into benchmarks/results/humaneval.json: every
condition (policy preset) on all 164 problems, for each model, beside the default policy.
Each run is a `codeheal-bench humaneval` folder of its own (records, report, plots), written by

    codeheal-bench humaneval --model local-0.5b --slice all --limit 164 --max-attempts 10 --max-tokens 6000 \
        --conditions one_shot resample raw_error self_heal sample_first --out benchmarks/results/humaneval-0.5b

and the same with `--model local-1.5b --out benchmarks/results/humaneval-1.5b`; then

    .venv/bin/python benchmarks/humaneval_models.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from codeheal.context import DEFAULT_POLICY

from codeheal_bench.humaneval_records import CONDITIONS

RESULTS = Path(__file__).resolve().parent / "results"
RUNS = {"local-0.5b": "humaneval-0.5b", "local-1.5b": "humaneval-1.5b"}
"""Each embedded model, by the name that stays with it, and the folder of its run."""


def joined(results: Path = RESULTS) -> dict:
    """The summary of every run in RUNS under `results`: its finished conditions (run on every
    problem), and for each unfinished one the problems it has done so far (the run resumes
    where it stopped)."""
    models = {}
    for model, folder in RUNS.items():
        run = json.loads((results / folder / "humaneval.json").read_text(encoding="utf-8"))
        if run["model"] != model:
            raise SystemExit(f"{folder} was run with model {run['model']!r}, not {model!r}")
        done = {c: run["conditions"].get(c, {}).get("finished", 0) for c in CONDITIONS}
        models[model] = {
            "folder": f"benchmarks/results/{folder}", **run,
            "conditions": {c: r for c, r in run["conditions"].items() if done[c] == run["problems"]},
            "unfinished": {c: n for c, n in done.items() if n != run["problems"]},
        }
    if len({run["problems"] for run in models.values()}) != 1:
        raise SystemExit("the runs cover different problems")
    return {"problems": next(iter(models.values()))["problems"], "default_policy": DEFAULT_POLICY, "models": models}


def main() -> int:
    summary = joined()
    (RESULTS / "humaneval.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    for model, run in summary["models"].items():
        rates = ", ".join(f"{c} {100 * r['pass_at_1']:.1f} %" for c, r in run["conditions"].items())
        pending = ", ".join(f"{c} {n} of {summary['problems']}" for c, n in run["unfinished"].items())
        print(f"{model}: {rates}" + (f"; unfinished: {pending}" if pending else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
