"""Progress while the model writes: a streamed reply is announced as it comes (`writing`
events, about once a second, from both faces of a model call inside a graph run), the reply
is the same as the one sent whole, and the CLI's live line counts its tokens."""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest
from langchain_core.messages import HumanMessage
from langgraph.graph import END, START, StateGraph
from rich.console import Console
from scripted_openai import ScriptedServer

from codeheal.context import Context
from codeheal.llm.factory import StreamedChatOpenAI, TimedChatOpenAI
from codeheal.prompting import model_call
from codeheal.prompting.model_call import ModelCall, ainvoke_model, invoke_model
from codeheal.runner import _Narrator

REPLY = "def fizzbuzz(n):\n    return [str(i) for i in range(1, n + 1)]\n"


class Out(TypedDict, total=False):
    reply: str


def _graph(model: object, attempt: int | None):
    def sync_node(state: Out) -> Out:
        ((text, _),) = invoke_model(ModelCall(model, [HumanMessage("Write fizzbuzz.")], timeout_s=30, attempt=attempt))
        return {"reply": text}

    async def async_node(state: Out) -> Out:
        ((text, _),) = await ainvoke_model(ModelCall(model, [HumanMessage("Write fizzbuzz.")], timeout_s=30,
                                                     attempt=attempt))
        return {"reply": text}

    graphs = []
    for node in (sync_node, async_node):
        builder = StateGraph(Out)
        builder.add_node("write", node)
        builder.add_edge(START, "write")
        builder.add_edge("write", END)
        graphs.append(builder.compile())
    return graphs


def _events(graph, face: str) -> list:
    if face == "sync":
        return list(graph.stream({}, stream_mode=["custom", "values"]))

    async def collect() -> list:
        return [chunk async for chunk in graph.astream({}, stream_mode=["custom", "values"])]

    return asyncio.run(collect())


@pytest.mark.parametrize("face", ["sync", "async"])
def test_a_streamed_reply_is_announced_as_it_is_written_and_ends_as_the_whole_reply(
    face: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_call, "WRITING_EVERY_S", 0.05)
    with ScriptedServer(script=lambda body: REPLY, pace=0.03) as server:
        model = StreamedChatOpenAI(model="scripted", base_url=server.url, api_key="none", max_retries=0,
                                   stream_usage=True, embedded="local-0.5b")
        sync_graph, async_graph = _graph(model, attempt=2)
        chunks = _events(sync_graph if face == "sync" else async_graph, face)
    writing = [payload for mode, payload in chunks if mode == "custom"]
    assert len(writing) >= 3
    assert {event["kind"] for event in writing} == {"writing"} and {event["attempt"] for event in writing} == {2}
    tokens = [event["completion_tokens"] for event in writing]
    assert tokens == sorted(tokens) and tokens[-1] < len(REPLY.split()) + 1
    assert all(event["seconds"] >= 0.05 for event in writing)
    assert server.requests[0]["stream"] is True
    assert chunks[-1] == ("values", {"reply": REPLY})


def test_no_event_for_a_reply_sent_whole_nor_for_a_call_of_no_attempt() -> None:
    with ScriptedServer(script=lambda body: REPLY, pace=0.03) as server:
        whole = TimedChatOpenAI(model="scripted", base_url=server.url, api_key="none", max_retries=0)
        streamed = StreamedChatOpenAI(model="scripted", base_url=server.url, api_key="none", max_retries=0,
                                      stream_usage=True, embedded="local-0.5b")
        for graph in (_graph(whole, attempt=1)[0], _graph(streamed, attempt=None)[0]):
            chunks = _events(graph, "sync")
            assert "custom" not in [mode for mode, _ in chunks]
            assert chunks[-1][1] == {"reply": REPLY}


class _Status:
    def __init__(self) -> None:
        self.shown: list[str] = []

    def update(self, doing: object) -> None:
        self.shown.append(doing.what)  # type: ignore[attr-defined]


def test_the_live_line_counts_the_tokens_written() -> None:
    narrator = _Narrator(Console(quiet=True), Context(model="local-0.5b"), reflects=True)
    narrator.status = _Status()
    narrator.on_event({"kind": "writing", "attempt": 1, "completion_tokens": 42, "seconds": 2.0})
    narrator.on_event({"kind": "writing", "attempt": 1, "completion_tokens": 1, "seconds": 0.0})
    assert narrator.status.shown == [
        f"attempt 1 of {narrator.max_attempts}: writing code, 42 tokens so far (21.0 a second)",
        f"attempt 1 of {narrator.max_attempts}: writing code, 1 token so far (0.0 a second)",
    ]
