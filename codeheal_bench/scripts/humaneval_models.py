"""Join the embedded models' HumanEval runs into benchmarks/results/humaneval.json, and their MBPP
runs into mbpp.json: every condition (policy preset) on every problem, for each model, up to 3
attempts at the current code, beside the model's default policy and the condition that won its
tuning slice; then, per model, the condition with the most tuning passes on both benchmarks
together (the rule the defaults follow). Each run is a `codeheal-bench humaneval` (or `mbpp`)
folder of its own (records, report, plots), written by

    codeheal-bench humaneval --model local-0.5b --slice all --max-attempts 3 \
        --conditions adaptive resample raw_error self_heal sample_first --out benchmarks/results/humaneval-0.5b-presets

(a run may be made in parts, each with one_shot's records copied in: attempt 1 is shared, and a
rerun with every record in place rewrites the report without the model), and the same with
`--model local-1.5b --out benchmarks/results/humaneval-1.5b-presets`; the MBPP runs likewise
(`codeheal-bench mbpp --limit 80 ... --out benchmarks/results/mbpp-0.5b-presets`). Then

    .venv/bin/python codeheal_bench/scripts/humaneval_models.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from codeheal.settings.presets import default_policy
from codeheal_bench.humaneval_records import CONDITIONS

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
RUNS = {"local-0.5b": "humaneval-0.5b-presets", "local-1.5b": "humaneval-1.5b-presets"}
"""Each embedded model, by the name that stays with it, and the folder of its HumanEval run."""
SUITE_RUNS = {"humaneval": RUNS, "mbpp": {"local-0.5b": "mbpp-0.5b-presets", "local-1.5b": "mbpp-1.5b-presets"}}
"""Each benchmark's runs, by the name of its results (SUITE.json in each folder)."""
TIEBREAK_RUNS = {"local-0.5b": "mbpp-0.5b-tiebreak"}
"""Where conditions tie on the tuning slices together, the run that decides (declared before it
ran): the tied conditions on MBPP's first 80 tuning problems (even task ids 12-170; the first 40
are the presets' own records, copied in). The most passes on the 40 further problems wins (the
same as the most on both tuning slices with MBPP's grown to 80); still tied, the fewer seconds."""


def joined(results: Path = RESULTS, suite: str = "humaneval") -> dict:
    """The summary of every run in RUNS under `results`: its finished conditions (run on every
    problem), for each unfinished one the problems it has done so far (the run resumes where
    it stopped), the model's default policy, and the retry condition with the most hidden
    passes on the tuning slice (`tuning_winner`, the fewer seconds among equals)."""
    models = {}
    for model, folder in SUITE_RUNS[suite].items():
        run = json.loads((results / folder / f"{suite}.json").read_text(encoding="utf-8"))
        if run["model"] != model:
            raise SystemExit(f"{folder} was run with model {run['model']!r}, not {model!r}")
        done = {c: run["conditions"].get(c, {}).get("finished", 0) for c in CONDITIONS}
        finished = {c: r for c, r in run["conditions"].items() if done[c] == run["problems"]}
        models[model] = {
            "folder": f"benchmarks/results/{folder}", **run, "conditions": finished,
            "unfinished": {c: n for c, n in done.items() if n != run["problems"]},
            "default": default_policy(model), "tuning_winner": tuning_winner(finished),
        }
    if len({run["problems"] for run in models.values()}) != 1:
        raise SystemExit("the runs cover different problems")
    return {"problems": next(iter(models.values()))["problems"],
            "default_policy": {model: run["default"] for model, run in models.items()}, "models": models}


def tuning_winner(conditions: dict[str, dict]) -> str | None:
    """The retry condition (one_shot aside) with the most hidden passes on the tuning slice, the
    one of fewer seconds among equals; None before any has finished."""
    retries = {c: r for c, r in conditions.items() if c != "one_shot"}
    if not retries:
        return None
    return max(retries, key=lambda c: (retries[c]["slices"]["tuning"]["passed"], -retries[c].get("wall_s", 0.0)))


def both_winner(suites: dict[str, dict], model: str, tiebreak: dict[str, dict] | None = None) -> str | None:
    """The retry condition with the most tuning passes on every benchmark together, among those
    finished on each; None before one has. Among equals, the one with the most passes on the
    further MBPP tuning problems of `tiebreak` (a run on more of them whose first problems are
    MBPP's tuning slice: TIEBREAK_RUNS), where it ran them all; then the fewer seconds in all."""
    runs = [summary["models"][model]["conditions"] for summary in suites.values()]
    common = [c for c in runs[0] if c != "one_shot" and all(c in run for run in runs)]
    if not common:
        return None
    passes = {c: sum(run[c]["slices"]["tuning"]["passed"] for run in runs) for c in common}
    tied = [c for c in common if passes[c] == max(passes.values())]
    mbpp = suites["mbpp"]["models"][model]["conditions"] if "mbpp" in suites else {}
    more = tiebreak if tiebreak and mbpp and all(c in tiebreak for c in tied) else {}

    def further(c: str) -> int:
        return more[c]["slices"]["tuning"]["passed"] - mbpp[c]["slices"]["tuning"]["passed"] if more else 0

    return max(tied, key=lambda c: (further(c), -sum(run[c].get("wall_s", 0.0) for run in runs)))


def tiebreak_run(model: str, results: Path = RESULTS) -> dict[str, dict] | None:
    """The finished conditions of `model`'s tie-break run (TIEBREAK_RUNS), None where it has none."""
    folder = TIEBREAK_RUNS.get(model)
    path = results / folder / "mbpp.json" if folder else None
    if path is None or not path.exists():
        return None
    run = json.loads(path.read_text(encoding="utf-8"))
    return {c: r for c, r in run["conditions"].items() if r.get("finished") == run["problems"]}


def main() -> int:
    suites = {}
    for suite, runs in SUITE_RUNS.items():
        if not all((RESULTS / folder / f"{suite}.json").exists() for folder in runs.values()):
            print(f"{suite}: not every model's run is there yet; skipped")
            continue
        summary = suites[suite] = joined(RESULTS, suite)
        (RESULTS / f"{suite}.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        for model, run in summary["models"].items():
            rates = ", ".join(f"{c} {100 * r['pass_at_1']:.1f} %" for c, r in run["conditions"].items())
            pending = ", ".join(f"{c} {n} of {summary['problems']}" for c, n in run["unfinished"].items())
            print(f"{suite} {model}: {rates}" + (f"; unfinished: {pending}" if pending else "")
                  + f"; default {run['default']}, tuning slice's winner {run['tuning_winner']}")
    if len(suites) > 1:
        for model in RUNS:
            print(f"{model}: most tuning passes on {' and '.join(suites)} together: "
                  f"{both_winner(suites, model, tiebreak_run(model))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
