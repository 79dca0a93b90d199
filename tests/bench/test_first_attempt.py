"""codeheal_bench/scripts/first_attempt.py's `script` variant: the first attempt asked for the way EvalPlus
does (once the library's `first_prompt="script"`), checked on the wire with a scripted
OpenAI-compatible server: no system prompt, EvalPlus's instruction around codeheal's task text
with the visible tests after it, its response prefix, generation stopped at the closing fence;
the model writes the whole module."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from scripted_openai import ScriptedServer

from codeheal import Context
from codeheal.llm import chat_model
from codeheal.prompting.parts import CLOSING_FENCE
from codeheal.sandboxes import LocalSandbox
from codeheal_bench.humaneval import task_text
from codeheal_bench.problems import load_problems

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "codeheal_bench" / "scripts"))

from first_attempt import EVALPLUS_PREFIX, SCRIPT_INSTRUCTION, messages_for, one  # noqa: E402


def test_script_style_asks_as_evalplus_does_and_the_model_writes_the_whole_module() -> None:
    problem = next(p for p in load_problems(3) if p.task_id == "HumanEval/2")
    messages, stop = messages_for("script", problem)
    with ScriptedServer(script=lambda body: "def truncate_number(number):\n    return number % 1.0\n") as server:
        model = chat_model(Context(model="scripted", base_url=server.url), 0.0)
        reply = model.invoke(messages, stop=list(stop))
    (request,) = server.requests
    user, start = request["messages"]
    assert user["role"] == "user" and user["content"].startswith(SCRIPT_INSTRUCTION)  # no system prompt
    assert task_text(problem) in user["content"] and problem.visible_tests.strip() in user["content"]
    assert start == {"role": "assistant", "content": EVALPLUS_PREFIX} and request["stop"] == [CLOSING_FENCE]
    assert "def truncate_number" in reply.content


def test_one_records_the_verdicts_and_where_the_seconds_went() -> None:
    """A variant's record, end to end over HTTP: the reply tested on the visible and hidden
    tests, with the prompt and generation timings the breakdown needs."""
    problem = next(p for p in load_problems(3) if p.task_id == "HumanEval/2")
    with ScriptedServer(script=lambda body: "    return number % 1.0\n") as server:
        model = chat_model(Context(model="scripted", base_url=server.url), 0.0)
        record = asyncio.run(one(LocalSandbox(), model, "stub_prefill", problem))
    assert record["variant"] == "stub_prefill" and record["task_id"] == "HumanEval/2"
    assert record["visible_passed"] and record["hidden_passed"] and not record["no_code"]
    assert record["prompt_tokens"] > 0 and record["completion_tokens"] > 0
    assert {"prompt_evaluated", "prompt_seconds", "generation_seconds"} <= set(record)
