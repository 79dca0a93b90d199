"""What separates our first attempt from the model card's HumanEval score? One row per factor,
each measured on the same problems with one greedy attempt and scored by the hidden check.

Variants (each changes one thing from the row above it):
- `module_chat`: the old format: system prompt, the task, the whole module as the reply.
- `fence_stop`: the reply is prefilled with the code fence and stops at the closing fence.
- `stub_prefill`: the prefill also holds the task's function stub: the model writes the body.
- `lean_stub`: as `stub_prefill`, but the task's stub block is left out of the user message
  (the prefill shows it): the model reads the stub once.
- `evalplus`: EvalPlus's instruct prompt and response prefix (how instruct models' HumanEval
  scores are usually measured), whole module, stop at the closing fence.
- `script`: EvalPlus's instruction and prefix around codeheal's task text, with the visible
  tests after it (`script_messages`; once the library's `first_prompt="script"`).

The tuning slice is the even task ids (choices are made there); the report slice is the odd
ids. Records are appended to benchmarks/results/first_attempt.jsonl as they arrive (a rerun
skips finished ones); the summary goes to benchmarks/results/first_attempt.json.

    .venv/bin/python codeheal_bench/scripts/first_attempt.py [--slice tuning|report|all] [--variants a,b]
        [--model local-0.5b|local-1.5b] [--out DIR]

`--out` writes first_attempt.jsonl and first_attempt.json there instead (another model's
records must not mix with the 0.5B ones committed in benchmarks/results/).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from codeheal.context import Context
from codeheal.forms.module.candidate import aevaluate_candidate
from codeheal.forms.module.prompts import (
    actor_messages,
    function_stub,
    without_stub_block,
)
from codeheal.llm import chat_model
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.model_call import ModelCall, ainvoke_model
from codeheal.prompting.parts import CLOSING_FENCE, CODE_FENCE
from codeheal.sandboxes import LocalSandbox
from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.humaneval import task_text
from codeheal_bench.problems import Problem, load_problems

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
RECORDS = RESULTS / "first_attempt.jsonl"
VARIANTS = ("module_chat", "fence_stop", "stub_prefill", "lean_stub", "evalplus", "script")
EVALPLUS_INSTRUCTION = (
    "Please provide a self-contained Python script that solves the following problem in a "
    "markdown code block:\n```\n{prompt}\n```\n"
)
EVALPLUS_PREFIX = (
    "Below is a Python script with a self-contained function that solves the problem and "
    "passes corresponding tests:\n```python\n"
)
"""EvalPlus's instruct prompt and response prefix: how instruct models' HumanEval scores are
measured, the model cards' included."""
MODEL_NAMES = {
    "local-0.5b": "local (Qwen2.5-Coder-0.5B-Instruct Q4_K_M)",
    "local-1.5b": "local-1.5b (Qwen2.5-Coder-1.5B-Instruct Q4_K_M)",
}
SCRIPT_INSTRUCTION = EVALPLUS_INSTRUCTION.split("\n", 1)[0]


def script_messages(*, task: str, tests: str) -> list[BaseMessage]:
    """EvalPlus's instruct prompt (no system prompt; the task in a fence unless it has its own),
    the tests after it, and its response prefix: the model writes the whole module."""
    body = task.strip() if "```" in task else f"```\n{task.strip()}\n```"
    text = (
        f"{SCRIPT_INSTRUCTION}\n{body}\n\nIt must pass these tests (the module is imported as "
        f"`solution`):\n```python\n{tests.strip()}\n```\n"
    )
    return [HumanMessage(text), AIMessage(EVALPLUS_PREFIX)]


def messages_for(variant: str, problem: Problem) -> tuple[list[BaseMessage], tuple[str, ...]]:
    """The first attempt's prompt under `variant`, and its stop sequences."""
    if variant == "evalplus":
        prompt = EVALPLUS_INSTRUCTION.format(prompt=problem.prompt.strip())
        return [HumanMessage(prompt), AIMessage(EVALPLUS_PREFIX)], (CLOSING_FENCE,)
    task = task_text(problem)
    if variant == "script":
        return script_messages(task=task, tests=problem.visible_tests), (CLOSING_FENCE,)
    base = actor_messages(
        task=without_stub_block(task) if variant == "lean_stub" else task, tests=problem.visible_tests, entry_point=problem.entry_point,
        reflections=[], last_code=None, last_feedback=None, prefill=variant != "module_chat",
    )
    if variant == "lean_stub":  # the prefill still holds the stub, taken from the whole task
        base[-1] = AIMessage(CODE_FENCE + (function_stub(task) or ""))
    if variant == "fence_stop":
        base[-1] = AIMessage("```python\n")
    return base, (() if variant == "module_chat" else (CLOSING_FENCE,))


def in_slice(problem: Problem, name: str) -> bool:
    number = int(problem.task_id.split("/")[1])
    return name == "all" or (number % 2 == 0) == (name == "tuning")


def read_done(records: Path) -> dict[tuple[str, str], dict]:
    if not records.exists():
        return {}
    done = {}
    for line in records.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        done[(record["variant"], record["task_id"])] = record
    return done


async def one(sandbox: LocalSandbox, model, variant: str, problem: Problem) -> dict:
    messages, stop = messages_for(variant, problem)
    ((reply, usage),) = await ainvoke_model(ModelCall(model, messages, stop=stop))
    code = extract_code(reply) or ""
    visible = await aevaluate_candidate(sandbox, code, problem.visible_tests, 10.0)
    hidden = await hidden_verdict(problem, code)
    return {
        "variant": variant, "task_id": problem.task_id, "hidden_passed": hidden.passed,
        "visible_passed": visible["passed"], "no_code": not code.strip(),
        "prompt_tokens": usage["prompt_tokens"], "completion_tokens": usage["completion_tokens"],
        "seconds": round(usage["seconds"], 2),
        "prompt_evaluated": usage["prompt_evaluated"], "prompt_seconds": round(usage["prompt_seconds"], 2),
        "generation_seconds": round(usage["generation_seconds"], 2),
    }


def summarise(done: dict[tuple[str, str], dict], problems: list[Problem]) -> dict:
    summary: dict = {}
    for variant in VARIANTS:
        for slice_name in ("tuning", "report", "all"):
            rows = [done[(variant, p.task_id)] for p in problems
                    if in_slice(p, slice_name) and (variant, p.task_id) in done]
            if not rows:
                continue
            completions = sorted(r["completion_tokens"] for r in rows)
            summary.setdefault(variant, {})[slice_name] = {
                "problems": len(rows),
                "hidden_pass_rate": round(sum(r["hidden_passed"] for r in rows) / len(rows), 4),
                "visible_passed": sum(r["visible_passed"] for r in rows),
                "no_code": sum(r["no_code"] for r in rows),
                "median_completion_tokens": completions[len(completions) // 2],
                "mean_prompt_tokens": round(sum(r["prompt_tokens"] for r in rows) / len(rows), 1),
                "seconds": round(sum(r["seconds"] for r in rows), 1),
            }
    return summary


async def main_async(slice_name: str, variants: list[str], model_name: str, out: Path) -> None:
    problems = load_problems(None)
    records = out / RECORDS.name
    done = read_done(records)
    model = chat_model(Context(model=model_name), 0.0)
    sandbox = LocalSandbox()
    for variant in variants:
        todo = [p for p in problems if in_slice(p, slice_name) and (variant, p.task_id) not in done]
        started = time.perf_counter()
        for index, problem in enumerate(todo, 1):
            record = await one(sandbox, model, variant, problem)
            done[(variant, problem.task_id)] = record
            with records.open("a", encoding="utf-8") as out:
                out.write(json.dumps(record) + "\n")
            print(f"{variant} {index}/{len(todo)} {problem.task_id} hidden={record['hidden_passed']} "
                  f"tokens={record['completion_tokens']} {time.perf_counter() - started:.0f}s", flush=True)
    summary_path = out / "first_attempt.json"
    earlier = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    summary = {
        **({"note": earlier["note"]} if "note" in earlier else {}),
        "model": MODEL_NAMES.get(model_name, model_name), "greedy": True,
        "slices": {"tuning": "even task ids", "report": "odd task ids"},
        "cpus": os.cpu_count(), "variants": summarise(done, problems),
    }
    summary_path.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(summary["variants"], indent=2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slice", choices=["tuning", "report", "all"], default="tuning")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--model", default="local-0.5b", choices=sorted(MODEL_NAMES))
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    variants = args.variants.split(",")
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants: {', '.join(sorted(unknown))}")
    args.out.mkdir(parents=True, exist_ok=True)
    asyncio.run(main_async(args.slice, variants, args.model, args.out))


if __name__ == "__main__":
    main()
