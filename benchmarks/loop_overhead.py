"""What the graph costs: the seed article's plain Python loop (generate, run, reflect, retry)
against the codeheal graph with a SQLite checkpointer, with the same scripted model, the same
prompts and the same local sandbox, so the only difference is the orchestration. The plain loop
calls codeheal's own prompt builders, extraction and evaluation (internals: the point is to
share them with the graph). Writes benchmarks/results/loop_overhead.json.

    .venv/bin/python benchmarks/loop_overhead.py [runs]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.checkpoint.sqlite import SqliteSaver

from codeheal.context import Context
from codeheal.forms.module.candidate import evaluate_candidate
from codeheal.forms.module.prompts import actor_messages, reflector_messages
from codeheal.loop.builder import build_graph
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.model_call import ModelCall, invoke_model
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import Sandbox

TASK = "Write median(values) returning the median of a non-empty list of numbers."
TESTS = "assert median([3, 1, 2]) == 2\nassert median([4, 1, 3, 2]) == 2.5\nassert median([7]) == 7\n"
REPLIES = (
    "```python\ndef median(values):\n    return sorted(values)[len(values) // 2]\n```",
    "Even-length lists need the mean of the two middle values.",
    "```python\ndef median(values):\n    s = sorted(values)\n    return (s[len(s) // 2 - 1] + s[len(s) // 2]) / 2\n```",
    "Odd-length lists have a single middle value; branch on the length.",
    "```python\ndef median(values):\n    s = sorted(values)\n    n = len(s)\n"
    "    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2\n```",
)
"""Three attempts: two failures, each followed by a reflection, then a pass."""
MAX_ATTEMPTS = 3
TIMEOUT_S = 10.0


def scripted_model() -> GenericFakeChatModel:
    """A fresh scripted model that gives REPLIES in order."""
    return GenericFakeChatModel(messages=iter(REPLIES))


def plain_loop(llm: GenericFakeChatModel, sandbox: Sandbox) -> str:
    """The loop as a plain Python `for`: generate, run the tests, reflect, retry. Uses the
    same prompt builders, code extraction and feedback parsing as the graph's nodes."""
    reflections: list[str] = []
    last_code, last_feedback = None, None
    for _ in range(MAX_ATTEMPTS):
        messages = actor_messages(task=TASK, tests=TESTS, entry_point=None, reflections=reflections,
                                  last_code=last_code, last_feedback=last_feedback)
        ((reply, _),) = invoke_model(ModelCall(llm, messages))
        code = extract_code(reply) or ""
        feedback = evaluate_candidate(sandbox, code, TESTS, TIMEOUT_S)
        if feedback["passed"]:
            return "passed"
        ((reflection, _),) = invoke_model(ModelCall(llm, reflector_messages(task=TASK, tests=TESTS, entry_point=None,
                                                                      code=code, feedback=feedback)))
        reflections.append(reflection)
        last_code, last_feedback = "", feedback  # the graph's default: the failed code is not shown
    return "failed"


def graph_loop(graph) -> str:
    """One run of the compiled graph on a new thread."""
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    result = graph.invoke({"task": TASK, "tests": TESTS}, config,
                          context=Context(max_attempts=MAX_ATTEMPTS, timeout_s=TIMEOUT_S))
    return result["status"]


def measure(runs: int = 20) -> dict:
    """Median wall times of both loops over `runs` interleaved pairs; `ratio` is the graph's
    median over the plain loop's, `paired_ratio_median` the median of the per-pair ratios."""
    sandbox = LocalSandbox()
    plain_s: list[float] = []
    graph_s: list[float] = []
    with tempfile.TemporaryDirectory() as directory:
        with SqliteSaver.from_conn_string(str(Path(directory) / "checkpoints.sqlite")) as saver:
            for index in range(runs + 1):
                llm_plain, llm_graph = scripted_model(), scripted_model()
                graph = build_graph(llm=llm_graph, sandbox=sandbox).compile(checkpointer=saver)
                timings = {}
                # Alternate who goes first so drift in machine load hits both alike.
                order = ("plain", "graph") if index % 2 else ("graph", "plain")
                for which in order:
                    started = time.perf_counter()
                    status = plain_loop(llm_plain, sandbox) if which == "plain" else graph_loop(graph)
                    timings[which] = time.perf_counter() - started
                    if status != "passed":
                        raise RuntimeError(f"the {which} loop did not pass the scripted run")
                if index:  # the first pair warms imports and caches; not counted
                    plain_s.append(timings["plain"])
                    graph_s.append(timings["graph"])
    ratios = [g / p for g, p in zip(graph_s, plain_s)]
    return {
        "runs": runs,
        "attempts_per_run": MAX_ATTEMPTS,
        "checkpointer": "sqlite",
        "plain_median_s": round(statistics.median(plain_s), 4),
        "graph_median_s": round(statistics.median(graph_s), 4),
        "ratio": round(statistics.median(graph_s) / statistics.median(plain_s), 4),
        "paired_ratio_median": round(statistics.median(ratios), 4),
        "durability": "LangGraph default (async checkpoint writes)",
    }


if __name__ == "__main__":
    result = measure(runs=int(sys.argv[1]) if len(sys.argv) > 1 else 20)
    out = Path(__file__).parent / "results" / "loop_overhead.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
