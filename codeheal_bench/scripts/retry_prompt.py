"""Does the retry prompt make the embedded model heal? A measurement behind two Context
defaults (show_failed_code off, retry_samples).

For the first N HumanEval problems whose one_shot attempt failed its visible tests (from
benchmarks/results/humaneval-3attempts/humaneval.jsonl), write K retry samples at temperature T from the actor's
retry prompt without a reflection, once with the failed code shown ("show") and once without
("hide"), and test each on the visible tests (and, for scoring only, the hidden check).
Writes benchmarks/results/retry_prompt.json.

    .venv/bin/python codeheal_bench/scripts/retry_prompt.py [--problems 16] [--samples 3] [--temperature 0.8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

from codeheal.context import Context
from codeheal.forms.module.candidate import aevaluate_candidate
from codeheal.llm import chat_model
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.model_call import ainvoke_model
from codeheal.forms.module.prompts import actor_messages
from codeheal.sandboxes import LocalSandbox
from codeheal.state import Feedback

from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.humaneval import task_text
from codeheal_bench.problems import Problem, load_problems

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
VARIANTS = ("show", "hide")


async def visible_feedback(sandbox: LocalSandbox, problem: Problem, code: str) -> Feedback:
    return await aevaluate_candidate(sandbox, code, problem.visible_tests, 10.0)


async def retry_samples(sandbox, model, gate, problem: Problem, failed_code: str, variant: str, k: int) -> list[dict]:
    """K samples of the retry prompt, each with its visible and hidden verdict."""
    feedback = await visible_feedback(sandbox, problem, failed_code)
    messages = actor_messages(
        task=task_text(problem), tests=problem.visible_tests, entry_point=problem.entry_point,
        reflections=[], last_code=failed_code if variant == "show" else "", last_feedback=feedback,
    )
    samples = []
    for _ in range(k):
        async with gate:
            ((reply, usage),) = await ainvoke_model(model, messages)
        code = extract_code(reply) or ""
        visible = await visible_feedback(sandbox, problem, code)
        samples.append({
            "visible_passed": visible["passed"], "passed_count": visible["passed_count"],
            "hidden_passed": (await hidden_verdict(problem, code)).passed,
            "copied_failed_code": code.strip() == failed_code.strip(), "tokens": usage["tokens"],
        })
    return samples


def summarize(rows: list[dict], k: int) -> dict:
    """Per variant and sample budget j <= k: problems where a sample passed the visible
    tests, and the hidden verdict of the sample a loop would keep (most visible checks)."""
    out = {}
    for variant in VARIANTS:
        mine = [r["samples"] for r in rows if r["variant"] == variant]
        out[variant] = {
            "problems": len(mine),
            "copied_failed_code": sum(s["copied_failed_code"] for ss in mine for s in ss),
            "samples": sum(len(ss) for ss in mine),
            "by_samples": {
                j: {
                    "visible_healed": sum(any(s["visible_passed"] for s in ss[:j]) for ss in mine),
                    "hidden_of_kept": sum(
                        max(ss[:j], key=lambda s: (s["visible_passed"], s["passed_count"]))["hidden_passed"]
                        for ss in mine
                    ),
                }
                for j in range(1, k + 1)
            },
        }
    return out


async def main(problems: int, k: int, temperature: float) -> dict:
    records = [json.loads(line) for line in (RESULTS / "humaneval-3attempts" / "humaneval.jsonl").read_text().splitlines()]
    failed = [r for r in records if r["condition"] == "one_shot" and r["status"] == "failed"][:problems]
    by_id = {p.task_id: p for p in load_problems()}
    sandbox, gate = LocalSandbox(), asyncio.Semaphore(int(os.environ.get("CODEHEAL_LOCAL_SLOTS", "1")))
    model = chat_model(Context(model="local-0.5b"), temperature)
    started = time.perf_counter()

    async def one(record: dict, variant: str) -> dict:
        samples = await retry_samples(sandbox, model, gate, by_id[record["task_id"]], record["code"], variant, k)
        print(f"{record['task_id']} {variant}: {sum(s['visible_passed'] for s in samples)}/{k} samples pass", flush=True)
        return {"task_id": record["task_id"], "variant": variant, "samples": samples}

    rows = await asyncio.gather(*(one(r, v) for r in failed for v in VARIANTS))
    return {
        "problems": len(failed), "samples_per_problem": k, "temperature": temperature,
        "summary": summarize(rows, k), "wall_s": round(time.perf_counter() - started, 1), "rows": rows,
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=int, default=16)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--temperature", type=float, default=0.8)
    args = parser.parse_args()
    os.environ.setdefault("CODEHEAL_LOCAL_SLOTS", "2")
    result = asyncio.run(main(args.problems, args.samples, args.temperature))
    (RESULTS / "retry_prompt.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result["summary"], indent=2))
