"""How fast does the embedded model write with the default thread choice, against 1 thread and
one per core, on a quiet machine and on a busy one?

For each condition (`quiet`: the machine as it is, its load recorded; `busy`: one
`python -c 'while 1: pass'` per core beside the server, as a test suite running beside a heal
is) and each row (`default`: codeheal's choice, llm.server.thread_choice, made as the server
starts; `1`; one thread per core), it starts a fresh server of the model with those threads
(the other settings as a run has them) and asks it `--requests` times for a reply of up to
`--tokens` tokens to a fizzbuzz prompt that starts with a fresh nonce (so its prompt is read
each time), recording llama.cpp's own generation and prompt-reading speeds and the wall time.
Writes benchmarks/results/thread_choice.json. Hold the model lock:

    flock /tmp/codeheal-model.lock .venv/bin/python codeheal_bench/scripts/thread_choice.py [--model local-0.5b]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.request
import uuid
from dataclasses import replace
from pathlib import Path

from codeheal.llm.server import local_settings, start
from codeheal.llm.weights import LOCAL_MODELS, ensure_model

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "thread_choice.json"
PROMPT = "Write a Python function fizzbuzz(n) that returns the list of strings for 1..n, with a docstring and comments."


def ask(base_url: str, token: str, model: str, max_tokens: int) -> dict:
    body = {"model": model, "temperature": 0, "max_tokens": max_tokens,
            "messages": [{"role": "user", "content": f"{uuid.uuid4().hex} {PROMPT}"}]}
    request = urllib.request.Request(base_url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    began = time.perf_counter()
    with urllib.request.urlopen(request, timeout=900) as response:
        reply = json.load(response)
    timings = reply["timings"]
    return {"generation_per_s": round(timings["predicted_per_second"], 2),
            "prompt_per_s": round(timings["prompt_per_second"], 2),
            "completion_tokens": reply["usage"]["completion_tokens"], "wall_s": round(time.perf_counter() - began, 2)}


def row(path: Path, name: str, threads: int | None, requests: int, tokens: int) -> dict:
    settings = local_settings()
    if threads is not None:
        settings = replace(settings, threads=threads, threads_why="this row's")
    token = uuid.uuid4().hex
    running = start(path, name, settings, api_key=token)
    try:
        asked = [ask(running.endpoint.base_url, token, name, tokens) for _ in range(requests)]
    finally:
        del running
    return {"threads": settings.threads, "why": settings.threads_why, "load_1m": round(os.getloadavg()[0], 2),
            "median_generation_per_s": round(statistics.median(a["generation_per_s"] for a in asked), 2),
            "median_prompt_per_s": round(statistics.median(a["prompt_per_s"] for a in asked), 2), "requests": asked}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="local-0.5b", choices=[m for m in LOCAL_MODELS if m != "local"])
    parser.add_argument("--requests", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=64)
    args = parser.parse_args()
    spec = LOCAL_MODELS[args.model]
    path = ensure_model(spec=spec)
    cores = len(os.sched_getaffinity(0))
    rows = {"default": None, "1": 1, str(cores): cores}
    results: dict = {"model": args.model, "cores": cores, "tokens": args.tokens, "conditions": {}}
    for condition in ("quiet", "busy"):
        spinners = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(cores if condition == "busy" else 0)]
        try:
            results["conditions"][condition] = {
                label: row(path, spec.name, threads, args.requests, args.tokens) for label, threads in rows.items()
            }
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
        for label, measured in results["conditions"][condition].items():
            print(f"{condition:5} {label:7} {measured['threads']} thread(s): {measured['median_generation_per_s']} tokens/s "
                  f"written, {measured['median_prompt_per_s']} read (load {measured['load_1m']})", flush=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
