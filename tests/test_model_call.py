"""One model call's two faces over real HTTP (the scripted server answers one completion per
request, as a server that ignores `n` does): the same requests, replies and errors."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_openai import ChatOpenAI
from scripted_openai import ScriptedServer

from codeheal.errors import ModelUnavailableError, PromptTooLargeError
from codeheal.prompting.model_call import ModelCall, ainvoke_model, invoke_model


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
