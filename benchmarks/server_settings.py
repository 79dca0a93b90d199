"""Which llama.cpp server settings make codeheal's attempts fastest on this machine?

Each row starts a fresh embedded server with one setting changed from the baseline and runs
codeheal's own workloads on the first 8 HumanEval problems of the tuning slice (even ids):
- `first`: the first attempt's prompt (function stub prefilled, stop at the closing fence),
  greedy;
- `retry`: a retry prompt that shows the first answer as the failed code (what speculative
  decoding from the prompt could copy), at the retry temperature;
- `two_samples`: two retry samples, as one request with n=2 where the server has 2 slots, else
  two requests one after another.
It records wall seconds per request and llama.cpp's own prompt and generation speeds, and
writes benchmarks/results/server_settings.json. Run it on a quiet machine.

    .venv/bin/python benchmarks/server_settings.py [--problems 8]
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
from codeheal.prompting.parts import CLOSING_FENCE
from codeheal.llm.server import ServerSettings, start
from codeheal.llm.weights import QWEN_CODER_0_5B, ensure_model

from codeheal_bench.humaneval import task_text
from codeheal_bench.problems import load_problems

RESULTS = Path(__file__).parent / "results" / "server_settings.json"
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
}


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


def workloads(problems: list, base_url: str, model: str, slots: int) -> dict:
    rows: dict[str, list[dict]] = {"first": [], "retry": [], "two_samples": []}
    for problem in problems:
        task = task_text(problem)
        first = actor_messages(task=task, tests=problem.visible_tests, entry_point=problem.entry_point,
                               reflections=[], last_code=None, last_feedback=None, prefill=True)
        reply = ask(base_url, model, first, 0.0)
        answer = reply["choices"][0]["message"]["content"].removeprefix("```python\n")
        rows["first"].append(_row(reply))
        failure = attempt_feedback(error="1 check failed: the answer was wrong")
        retry = actor_messages(task=task, tests=problem.visible_tests, entry_point=problem.entry_point,
                               reflections=[], last_code=answer, last_feedback=failure, prefill=True)
        rows["retry"].append(_row(ask(base_url, model, retry, 0.7)))
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
    }


def _summary(values: list[dict]) -> dict:
    def median(key: str) -> float | None:
        found = [v[key] for v in values if v.get(key) is not None]
        return round(statistics.median(found), 2) if found else None

    return {
        "requests": len(values),
        "median_wall_s": median("wall_s"),
        "total_wall_s": round(sum(v["wall_s"] for v in values), 2),
        "completion_tokens": sum(v["completion_tokens"] for v in values),
        "median_prompt_per_s": median("prompt_per_s"),
        "median_generation_per_s": median("generation_per_s"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--rows", default=",".join(ROWS))
    args = parser.parse_args()
    tuning = [p for p in load_problems(None) if int(p.task_id.split("/")[1]) % 2 == 0][: args.problems]
    path = ensure_model(spec=QWEN_CODER_0_5B)
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {"rows": {}}
    for name in args.rows.split(","):
        settings = ROWS[name]
        load = os.getloadavg()[0]
        running = start(path, QWEN_CODER_0_5B.name, settings)
        try:
            measured = workloads(tuning, running.endpoint.base_url, running.endpoint.model_name, settings.slots)
        finally:
            del running  # the server stops when released
        results["rows"][name] = {"settings": asdict(settings), "load_average_1m": round(load, 2), **measured}
        print(name, json.dumps(measured), flush=True)
        results.update(problems=len(tuning), cpus=CORES, model=QWEN_CODER_0_5B.filename)
        RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
