"""One model call's two faces over real HTTP (the scripted server answers one completion per
request, as a server that ignores `n` does): the same requests, replies and errors."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_openai import ChatOpenAI
from scripted_openai import ADD_TASK, ADD_TESTS, ScriptedServer, is_actor

from codeheal import Context, build_graph
from codeheal.errors import ModelUnavailableError, PromptTooLargeError
from codeheal.llm.factory import TimedChatOpenAI
from codeheal.prompting.model_call import (
    NO_USAGE, REFUSED, ModelCall, ainvoke_model, breakdown, invoke_model, total_usage, usage_fields,
)


def both_faces(call: ModelCall) -> list[list]:
    return [invoke_model(call), asyncio.run(ainvoke_model(call))]


def test_both_faces_ask_again_until_a_server_that_ignores_n_gave_every_sample() -> None:
    with ScriptedServer(script=lambda body: "def f():") as server:
        model = ChatOpenAI(model="scripted", base_url=server.url, api_key="none", max_retries=0)
        call = ModelCall(model, [HumanMessage("Write f."), AIMessage("```python\n")], stop=("```",),
                         samples=3, per_call=2, max_tokens=50)
        for replies in both_faces(call):
            assert [text for text, _ in replies] == ["```python\ndef f():"] * 3
            assert [usage["tokens"] for _, usage in replies] == [15, 15, 15]
        assert [body.get("n", 1) for body in server.requests] == [2, 2, 1] * 2
        assert {body.get("max_completion_tokens", body.get("max_tokens")) for body in server.requests} == {50}
        assert all(body["stop"] == ["```"] for body in server.requests)


@pytest.mark.parametrize(("error", "raised"), [
    ((400, "the request exceeds the available context size"), PromptTooLargeError),
    ((503, "loading model"), ModelUnavailableError),
])
def test_both_faces_translate_the_server_s_errors(error: tuple[int, str], raised: type[Exception]) -> None:
    with ScriptedServer(error=error) as server:
        model = ChatOpenAI(model="scripted", base_url=server.url, api_key="none", max_retries=0)
        call = ModelCall(model, [HumanMessage("Write f.")])
        with pytest.raises(raised, match=server.url):
            invoke_model(call)
        with pytest.raises(raised, match=server.url):
            asyncio.run(ainvoke_model(call))


LLAMA_TIMINGS = {"prompt_n": 7, "prompt_ms": 350.0, "predicted_n": 5, "predicted_ms": 250.0, "cache_n": 3}


def test_both_faces_record_the_server_s_timings_and_zeros_where_it_sends_none() -> None:
    with ScriptedServer(script=lambda body: "x", timings=lambda body: LLAMA_TIMINGS) as server:
        model = chat_model_for(server.url)
        for replies in both_faces(ModelCall(model, [HumanMessage("Write f.")])):
            usage = replies[0][1]
            assert (usage["prompt_evaluated"], usage["prompt_reused"]) == (7, 3)
            assert (usage["prompt_seconds"], usage["generation_seconds"]) == (0.35, 0.25)
    with ScriptedServer(script=lambda body: "x") as server:
        for replies in both_faces(ModelCall(chat_model_for(server.url), [HumanMessage("Write f.")])):
            usage = replies[0][1]
            assert (usage["prompt_evaluated"], usage["prompt_reused"], usage["prompt_seconds"]) == (0, 0, 0.0)


def test_a_run_s_breakdown_sums_its_attempts_and_leaves_the_rest_to_overhead() -> None:
    usage = total_usage([NO_USAGE, {**NO_USAGE, "prompt_evaluated": 100, "prompt_reused": 900,
                                     "prompt_seconds": 1.0, "generation_seconds": 2.0}])
    attempt = {"attempt": 1, "tokens": 0, "seconds": 3.5, **usage_fields(usage), "sandbox_seconds": 0.5}
    assert breakdown([attempt, attempt], wall_seconds=10.0) == {
        "prompt_evaluated": 200, "prompt_reused": 1800, "prompt_seconds": 2.0, "generation_seconds": 4.0,
        "sandbox_seconds": 1.0, "overhead_seconds": 3.0,
    }


def chat_model_for(url: str) -> ChatOpenAI:
    return TimedChatOpenAI(model="scripted", base_url=url, api_key="none", max_retries=0)


@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_prompt_the_server_refuses_is_a_failed_attempt_not_the_run_s_end(face: str) -> None:
    """Module form, both faces of the graph: the first actor prompt is refused as over the
    context; that attempt fails saying so, and the run goes on to heal."""
    refused: list[dict] = []

    def refuse_the_first(body: dict) -> str | None:
        if is_actor(body["messages"]) and not refused:
            refused.append(body)
            return "request (9000 tokens) exceeds the available context size (4096 tokens)"
        return None

    with ScriptedServer(refuse=refuse_the_first) as server:
        app = build_graph().compile()
        run = {"task": ADD_TASK, "tests": ADD_TESTS}
        context = Context(model="scripted", base_url=server.url, max_attempts=4)
        result = app.invoke(run, context=context) if face == "sync" else asyncio.run(app.ainvoke(run, context=context))
    assert result["status"] == "passed" and refused
    first = result["history"][0]
    assert first["code"].startswith(REFUSED) and "larger than the model's context" in first["summary"]
