"""How fast is the embedded 0.5B model (`local-0.5b`) on this machine?

Measures the server's load time (start to ready), then prompt evaluation and generation speed
in tokens per second over a few coding prompts, and writes benchmarks/results/local_model.json.

    .venv/bin/python codeheal_bench/scripts/local_model_speed.py [--max-tokens N] [--out FILE]

Speeds come from llama.cpp's own `timings` in each response; a server that sends none is
measured from `usage` and wall time instead (generation then includes prompt time: a lower bound).
The machine's load average is recorded too: on a busy machine llama.cpp slows down sharply.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path

from codeheal.llm.server import ensure_server, local_slots, local_threads
from codeheal.llm.weights import QWEN_CODER_0_5B, ensure_model

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "local_model.json"
PROMPTS = (
    "Write a Python function is_prime(n) that returns True when n is a prime number.",
    "Write a Python function running_median(xs) that returns the median of each prefix of xs.",
    "Write a Python function to_roman(n) that converts an integer from 1 to 3999 to a Roman numeral.",
    "Write a Python function word_frequencies(text) that counts words case-insensitively, "
    "ignoring punctuation, and returns a dict sorted by count descending.",
)


@dataclass(frozen=True)
class Measurement:
    """One prompt's answer: tokens and milliseconds spent on the prompt and on generation."""

    prompt_tokens: int
    prompt_ms: float | None
    generated_tokens: int
    generation_ms: float
    wall_s: float
    source: str


def measure(base_url: str, model: str, prompt: str, max_tokens: int) -> Measurement:
    """Send one chat completion at temperature 0 and read its speed."""
    body = json.dumps({
        "model": model,
        "messages": [{"role": "user", "content": prompt}],
        "temperature": 0,
        "max_tokens": max_tokens,
    }).encode()
    request = urllib.request.Request(
        base_url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
    )
    started = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as response:
        reply = json.load(response)
    wall = time.perf_counter() - started
    timings = reply.get("timings")
    if timings:
        return Measurement(
            prompt_tokens=timings["prompt_n"], prompt_ms=timings["prompt_ms"],
            generated_tokens=timings["predicted_n"], generation_ms=timings["predicted_ms"],
            wall_s=round(wall, 3), source="timings",
        )
    usage = reply["usage"]
    return Measurement(
        prompt_tokens=usage["prompt_tokens"], prompt_ms=None,
        generated_tokens=usage["completion_tokens"], generation_ms=wall * 1000,
        wall_s=round(wall, 3), source="usage+wall",
    )


def per_second(tokens: int, ms: float) -> float | None:
    """Tokens per second, or None when nothing was timed."""
    return round(tokens / (ms / 1000), 1) if ms else None


def main() -> None:
    """Run the benchmark and write its JSON results."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=256, help="answer length cap per prompt")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON results")
    args = parser.parse_args()

    load_before = os.getloadavg()
    started = time.perf_counter()
    model_path = ensure_model(spec=QWEN_CODER_0_5B)
    assemble_s = time.perf_counter() - started
    started = time.perf_counter()
    endpoint = ensure_server("local-0.5b")
    load_s = time.perf_counter() - started

    runs = [measure(endpoint.base_url, endpoint.model_name, p, args.max_tokens) for p in PROMPTS]
    timed_prompts = [r for r in runs if r.prompt_ms is not None]
    results = {
        "model": QWEN_CODER_0_5B.filename,
        "model_sha256": QWEN_CODER_0_5B.sha256,
        "model_path": str(model_path),
        "machine": {
            "cpu_count": os.cpu_count(),
            "processor": platform.processor() or platform.machine(),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in os.getloadavg()],
        },
        "server": {"threads": local_threads(), "slots": local_slots()},
        "assemble_or_check_s": round(assemble_s, 3),
        "load_s": round(load_s, 3),
        "prompt_tokens_per_s": per_second(
            sum(r.prompt_tokens for r in timed_prompts), sum(r.prompt_ms for r in timed_prompts)
        ),
        "generation_tokens_per_s": per_second(
            sum(r.generated_tokens for r in runs), sum(r.generation_ms for r in runs)
        ),
        "max_tokens": args.max_tokens,
        "runs": [asdict(r) for r in runs],
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps({k: results[k] for k in (
        "load_s", "prompt_tokens_per_s", "generation_tokens_per_s", "server", "machine"
    )}, indent=2))


if __name__ == "__main__":
    main()
