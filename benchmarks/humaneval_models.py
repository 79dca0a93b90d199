"""Join the embedded models' HumanEval runs into benchmarks/results/humaneval.json: every
condition (policy preset) on all 164 problems, for each model, beside the default policy.
Each run is a `codeheal-bench humaneval` folder of its own (records, report, plots), written by

    codeheal-bench humaneval --model local-0.5b --slice all --limit 164 --max-attempts 10 --max-tokens 6000 \
        --conditions one_shot resample raw_error self_heal sample_first --out benchmarks/results/humaneval-0.5b

and the same with `--model local-1.5b --out benchmarks/results/humaneval-1.5b`. Beside them,
`by_slices`: the runs of SLICE_RUNS (per model, one run of all 164 problems, or a tuning-slice
and a report-slice run at the same settings, whose conditions include the default policy)
joined into one run on all 164. Then

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
SLICE_RUNS = {"local-0.5b": ("humaneval-0.5b-default",), "local-1.5b": ("humaneval-1.5b-default",)}
"""Per model, the runs of the default policy at the current code that cover all 164 problems:
its tuning-slice and report-slice runs, or one run of them all."""


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
    return {"problems": next(iter(models.values()))["problems"], "default_policy": DEFAULT_POLICY, "models": models,
            "by_slices": by_slices(results)}


def by_slices(results: Path = RESULTS) -> dict:
    """Each SLICE_RUNS entry joined: per condition every run of it finished, its hidden passes,
    visible pass / hidden fail and wall time summed over its runs (two slices, or one run of
    all). An entry with no run under `results` is left out; a pair with a run missing is refused."""
    joined_runs = {}
    for model, folders in SLICE_RUNS.items():
        paths = [results / folder / "humaneval.json" for folder in folders]
        if not any(path.exists() for path in paths):
            continue
        if not all(path.exists() for path in paths):
            raise SystemExit(f"{model}: {' and '.join(folders)} are joined, and one of them is missing")
        runs = [json.loads(path.read_text(encoding="utf-8")) for path in paths]
        if {run["model"] for run in runs} != {model} or len({run["max_attempts"] for run in runs}) != 1:
            raise SystemExit(f"{', '.join(folders)}: not one model ({model}) at one max_attempts")
        problems = sum(run["problems"] for run in runs)
        finished = [c for c in runs[0]["conditions"]
                    if all(run["conditions"].get(c, {}).get("finished") == run["problems"] for run in runs)]
        conditions = {}
        for c in finished:
            results_of = [run["conditions"][c] for run in runs]
            passed = sum(r["passed"] for r in results_of)
            conditions[c] = {
                "passed": passed, "pass_at_1": round(passed / problems, 3),
                "visible_passed_hidden_failed": sum(s["visible_passed_hidden_failed"]
                                                    for r in results_of for s in r["slices"].values()),
                "wall_s": round(sum(r["wall_s"] for r in results_of), 1),
            }
        joined_runs[model] = {"folders": [f"benchmarks/results/{f}" for f in folders], "problems": problems,
                              "max_attempts": runs[0]["max_attempts"], "conditions": conditions}
    return joined_runs


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
