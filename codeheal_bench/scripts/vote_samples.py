"""More first-attempt samples where the loop stops at once, for codeheal_bench/scripts/vote_ceiling.py.

Where the greedy first attempt passes the visible tests the loop stops, so the results folders
hold no other candidate for those problems, and a vote among them has nothing to choose from.
This draws K first attempts at the retry temperature (seeds 1..K, the prompt and settings of
one_shot otherwise) for each problem of a slice whose one_shot record in --greedy passed its
visible tests: the candidates `select_samples` would draw there. Each is a run record
(condition "one_sample", hidden verdict included) in OUT/humaneval.jsonl (OUT/mbpp.jsonl with
--suite mbpp); a rerun skips those written. The K samples of a problem run back to back, so the
prompt is evaluated once.

    PYTHONPATH=$PWD .venv/bin/python codeheal_bench/scripts/vote_samples.py --slice tuning --samples 4 \\
        --model local-1.5b --greedy benchmarks/results/humaneval-1.5b-presets \\
        --out benchmarks/results/humaneval-samples-1.5b
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from codeheal import build_graph

from codeheal_bench.humaneval import BenchConfig, condition_context, load_suite, run_problem
from ever_passed import json_lines

CONDITION = "one_sample"


def visible_passes(folder: Path, model: str, suite: str = "humaneval") -> set[str]:
    """The problems whose one_shot record in `folder` passed its visible tests."""
    rows = json_lines(folder / f"{suite}.jsonl")
    return {r["task_id"] for r in rows if r["condition"] == "one_shot" and r["model"] == model and r["status"] == "passed"}


async def draw(slice_name: str, samples: int, model: str, greedy: Path, out: Path,
               base_url: str | None = None, limit: int | None = None, suite: str = "humaneval",
               data: Path | None = None) -> None:
    """Draw the samples (see the module's docstring); `limit`: the first N chosen problems only;
    `data`: MBPP's file with suite "mbpp" (else $CODEHEAL_MBPP_FILE)."""
    out.mkdir(parents=True, exist_ok=True)
    records = out / f"{suite}.jsonl"
    done = {(row["task_id"], row["sample_seed"]) for row in json_lines(records)}
    chosen = visible_passes(greedy, BenchConfig(out_dir=out, model=model).model, suite)
    problems = [p for p in load_suite(suite, data, slice_name) if p.task_id in chosen][:limit]
    graph = build_graph().compile(name="codeheal")
    verdicts: dict = {}
    for number, problem in enumerate(problems, 1):
        for seed in range(1, samples + 1):
            if (problem.task_id, seed) in done:
                continue
            config = BenchConfig(out_dir=out, model=model, base_url=base_url, seed=seed, suite=suite, data=data)
            retry_temperature = condition_context("hedged", config).policy.retry_temperature
            context = config.context(policy="one_shot", temperature=retry_temperature, max_attempts=None)
            record = await run_problem(graph, problem, "one_shot", context, config, None, verdicts)
            with records.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps({**record, "condition": CONDITION, "sample_seed": seed}) + "\n")
        print(f"[{number}/{len(problems)}] {problem.task_id}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default="humaneval", choices=["humaneval", "mbpp"])
    parser.add_argument("--data", type=Path, default=None, help="with --suite mbpp: MBPP's mbpp.jsonl (else $CODEHEAL_MBPP_FILE)")
    parser.add_argument("--slice", default="tuning", choices=["all", "tuning", "report"])
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--model", default="local-1.5b")
    parser.add_argument("--greedy", type=Path, required=True, help="a results folder holding the model's one_shot records")
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint serving --model")
    parser.add_argument("--limit", type=int, default=None, help="the first N chosen problems only")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    asyncio.run(draw(args.slice, args.samples, args.model, args.greedy, args.out, args.base_url, args.limit,
                     args.suite, args.data))


if __name__ == "__main__":
    main()
