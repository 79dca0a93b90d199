"""Which llama.cpp server settings make codeheal's attempts fastest on this machine?

Each row starts a fresh embedded server with one setting changed from the baseline and runs
codeheal's own workloads on the first 8 HumanEval problems of the tuning slice (even ids):
- `first`: the first attempt's prompt (function stub prefilled, stop at the closing fence),
  greedy;
- `retry`: a retry prompt that shows the first answer as the failed code (what speculative
  decoding from the prompt could copy), at the retry temperature;
- `two_samples`: two retry samples, as one request with n=2 where the server has 2 slots, else
  two requests one after another.
It records wall seconds per request, llama.cpp's own prompt and generation speeds and, where a
row drafts, the share of drafted tokens the served model accepted, and writes
benchmarks/results/server_settings.json: the 0.5B model's rows at its top level (the table
docs/models.md renders), another model's (`--model local-1.5b`) under `models`. Run it on a
quiet machine.

    .venv/bin/python codeheal_bench/scripts/server_settings.py [--problems 8] [--model local-1.5b]
        [--rows baseline,spec_ngram_mod,draft_n8] [--workloads first,retry]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import urllib.request
from dataclasses import asdict, replace
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codeheal.evaluation.feedback import attempt_feedback
from codeheal.forms.module.prompts import actor_messages
from codeheal.llm.server import ServerSettings, start
from codeheal.llm.weights import LOCAL_MODELS, ensure_model
from codeheal.prompting.parts import CLOSING_FENCE
from codeheal_bench.humaneval import task_text
from codeheal_bench.problems import load_problems

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "server_settings.json"
CORES = os.cpu_count() or 1
DEFAULT = ServerSettings(threads=CORES, slots=1, speculative="NONE")  # the rows compare against no drafting
ROWS = {
    "baseline": DEFAULT,
    "threads_1": replace(DEFAULT, threads=1),
    "batch_512_ubatch_128": replace(DEFAULT, batch=512, ubatch=128),
    "batch_512_ubatch_512": replace(DEFAULT, batch=512, ubatch=512),
    "slots_2": replace(DEFAULT, slots=2),
    "spec_ngram_simple": replace(DEFAULT, speculative="NGRAM_SIMPLE"),
    "spec_ngram_mod": replace(DEFAULT, speculative="NGRAM_MOD"),
    "draft_n4": replace(DEFAULT, draft="local-0.5b", draft_max=4),
    "draft_n8": replace(DEFAULT, draft="local-0.5b", draft_max=8),
    "draft_n16": replace(DEFAULT, draft="local-0.5b", draft_max=16),
    "draft_n8_ngram_mod": replace(DEFAULT, draft="local-0.5b", draft_max=8, speculative="NGRAM_MOD"),
}
"""The draft rows draft with the 0.5B model (pointless when it is also the served model)."""
RENDERED_MODEL = "local-0.5b"
WORKLOADS = ("first", "retry", "two_samples")


def wire(messages: list[BaseMessage]) -> list[dict]:
    roles = {SystemMessage: "system", HumanMessage: "user", AIMessage: "assistant"}
    return [{"role": roles[type(m)], "content": m.content} for m in messages]


def ask(base_url: str, model: str, messages: list[BaseMessage], temperature: float, n: int = 1) -> dict:
    body = {"model": model, "messages": wire(messages), "temperature": temperature, "max_tokens": 512,
            "stop": [CLOSING_FENCE], **({"n": n} if n > 1 else {})}
    request = urllib.request.Request(base_url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        reply = json.load(response)
    reply["wall_s"] = time.perf_counter() - started
    return reply


def workloads(problems: list, base_url: str, model: str, slots: int, wanted: tuple[str, ...] = WORKLOADS) -> dict:
    rows: dict[str, list[dict]] = {name: [] for name in wanted}
    for problem in problems:
        task = task_text(problem)
        first = actor_messages(task=task, tests=problem.visible_tests, entry_point=problem.entry_point,
                               reflections=[], last_code=None, last_feedback=None, prefill=True)
        reply = ask(base_url, model, first, 0.0)
        answer = reply["choices"][0]["message"]["content"].removeprefix("```python\n")
        if "first" in rows:
            rows["first"].append(_row(reply))
        failure = attempt_feedback(error="1 check failed: the answer was wrong")
        retry = actor_messages(task=task, tests=problem.visible_tests, entry_point=problem.entry_point,
                               reflections=[], last_code=answer, last_feedback=failure, prefill=True)
        if "retry" in rows:
            rows["retry"].append(_row(ask(base_url, model, retry, 0.7)))
        if "two_samples" not in rows:
            continue
        if slots >= 2:
            rows["two_samples"].append(_row(ask(base_url, model, retry, 0.7, n=2)))
        else:
            one, two = ask(base_url, model, retry, 0.7), ask(base_url, model, retry, 0.7)
            rows["two_samples"].append({
                "wall_s": one["wall_s"] + two["wall_s"],
                "completion_tokens": one["usage"]["completion_tokens"] + two["usage"]["completion_tokens"],
            })
    return {name: _summary(values) for name, values in rows.items()}


def _row(reply: dict) -> dict:
    timings = reply.get("timings", {})
    return {
        "wall_s": reply["wall_s"],
        "completion_tokens": reply["usage"]["completion_tokens"],
        "prompt_per_s": timings.get("prompt_per_second"),
        "generation_per_s": timings.get("predicted_per_second"),
        "drafted": timings.get("draft_n", 0),
        "accepted": timings.get("draft_n_accepted", 0),
    }


def _summary(values: list[dict]) -> dict:
    def median(key: str) -> float | None:
        found = [v[key] for v in values if v.get(key) is not None]
        return round(statistics.median(found), 2) if found else None

    drafted = sum(v.get("drafted", 0) for v in values)
    return {
        "requests": len(values),
        "median_wall_s": median("wall_s"),
        "total_wall_s": round(sum(v["wall_s"] for v in values), 2),
        "completion_tokens": sum(v["completion_tokens"] for v in values),
        "median_prompt_per_s": median("prompt_per_s"),
        "median_generation_per_s": median("generation_per_s"),
        **({"drafted": drafted, "accepted": round(sum(v["accepted"] for v in values) / drafted, 3)} if drafted else {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--model", default=RENDERED_MODEL, choices=[m for m in LOCAL_MODELS if m != "local"])
    parser.add_argument("--rows", default=",".join(ROWS))
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    args = parser.parse_args()
    wanted = tuple(args.workloads.split(","))
    tuning = [p for p in load_problems(None) if int(p.task_id.split("/")[1]) % 2 == 0][: args.problems]
    spec = LOCAL_MODELS[args.model]
    path = ensure_model(spec=spec)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"rows": {}}
    section = results if args.model == RENDERED_MODEL else results.setdefault("models", {}).setdefault(args.model, {})
    for name in args.rows.split(","):
        settings = ROWS[name]
        load = os.getloadavg()[0]
        started = time.perf_counter()
        running = start(path, spec.name, settings)
        ready_s = time.perf_counter() - started
        try:
            measured = workloads(tuning, running.endpoint.base_url, running.endpoint.model_name, settings.slots, wanted)
        finally:
            del running  # the server stops when released
        load_after = os.getloadavg()[0]
        section.setdefault("rows", {})[name] = {
            "settings": asdict(settings), "problems": len(tuning), "load_average_1m": round(load, 2),
            "load_average_1m_after": round(load_after, 2), "start_s": round(ready_s, 2), **measured,
        }
        print(name, json.dumps(measured), flush=True)
        section.update(problems=len(tuning), cpus=CORES, model=spec.filename)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
