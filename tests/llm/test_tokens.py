"""Token counts: the one estimate, and llama.cpp's /tokenize for a model an embedded server
serves (over real HTTP, against the scripted server), with the estimate whenever it fails."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from doubles import scripted
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from scripted_openai import ADD_TASK, ADD_TESTS, ScriptedServer

from codeheal import Context, build_graph
from codeheal.context import ProjectSettings
from codeheal.forms.project.prompts import project_actor_messages
from codeheal.llm import server as embedded
from codeheal.llm.factory import MAX_TOKENS, token_counter
from codeheal.forms.project.run import files_of, run_of
from codeheal.state import State
from codeheal.tokens import ESTIMATE, MESSAGE_TOKENS, TokenCounter, estimate_tokens


def words(text: str) -> list[int]:
    return list(range(len(text.split())))


def served_by_codeheal(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    """`url` registered as an embedded server's endpoint, as ensure_server leaves it."""
    running = embedded._Running(server=None, endpoint=embedded.Endpoint(base_url=url, model_name="scripted"))
    monkeypatch.setitem(embedded._servers, Path("/scripted.gguf"), running)


def test_the_estimate_is_a_token_per_three_bytes_rounded_up() -> None:
    assert estimate_tokens("x" * 35) == 12
    assert estimate_tokens("é" * 3) == 2  # six bytes of UTF-8
    assert estimate_tokens("") == 0
    messages = [SystemMessage("x" * 30), HumanMessage("y" * 31)]
    assert ESTIMATE.prompt_tokens(messages) == 10 + 11 + 2 * MESSAGE_TOKENS


def test_a_llama_cpp_server_counts_the_tokens_once_per_text() -> None:
    with ScriptedServer(tokenize=words) as server:
        counter = TokenCounter(server.url)
        assert counter.tokens("three short words") == 3
        assert counter.tokens("three short words") == 3
        assert counter.prompt_tokens([SystemMessage("one two"), HumanMessage("one")]) == 3 + 2 * MESSAGE_TOKENS
        assert server.tokenized == ["three short words", "one two", "one"]


def test_a_server_without_tokenize_or_none_at_all_gives_the_estimate() -> None:
    text = "a text the server cannot count"
    with ScriptedServer() as server:
        assert TokenCounter(server.url).tokens(text) == estimate_tokens(text)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    assert TokenCounter(closed).tokens(text) == estimate_tokens(text)


def test_only_a_model_codeheal_serves_is_counted_by_its_server(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer(tokenize=words) as server:
        model = ChatOpenAI(model="scripted", base_url=server.url, api_key="none")
        assert token_counter(model) is ESTIMATE
        served_by_codeheal(monkeypatch, server.url)
        assert token_counter(model) == TokenCounter(server.url, "none")  # with the key the model sends
        assert server.tokenized == []


def test_a_run_on_an_embedded_server_budgets_with_its_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    with ScriptedServer(tokenize=words) as server:
        served_by_codeheal(monkeypatch, server.url)
        model = ChatOpenAI(model="scripted", base_url=server.url, api_key="none", max_retries=0)
        result = build_graph(llm=model).compile().invoke(
            {"task": ADD_TASK, "tests": ADD_TESTS}, context=Context(max_tokens=5000, max_attempts=3),
        )
        assert result["status"] == "passed"
        assert ADD_TASK in "\n".join(server.tokenized)


def test_the_project_forms_prompt_is_fitted_by_the_servers_count(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A tokenizer that needs a token per byte (three times the estimate) gets a shorter repair
    context, fitted to the window by its own count, not by the estimate."""
    shutil.copytree(Path(__file__).parents[1] / "project" / "fixtures" / "shop", tmp_path / "shop")
    context = Context(project=ProjectSettings(context_size=MAX_TOKENS + 1400))
    model = scripted("A lesson.", "no code")
    app = build_graph(llm=model).compile(interrupt_after=["attempt"], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    app.invoke({"project": str(tmp_path / "shop"), "test_command": "python -m pytest -q"}, config, context=context)
    state = State(**app.get_state(config).values)  # a checkpoint's values are a dict; the prompt reads State
    assert files_of(run_of(state)) and run_of(state)["as_is"]  # the project was read and tested as it is

    def per_byte(text: str) -> list[int]:
        return list(range(len(text.encode())))

    with ScriptedServer(tokenize=per_byte) as server:
        counter = TokenCounter(server.url)
        exact = project_actor_messages(state, context, MAX_TOKENS, retry=False, counter=counter)
        assert sum(len(m.text.encode()) + MESSAGE_TOKENS for m in exact) <= context.project.context_size - MAX_TOKENS
        assert any("bulk_discount" in text for text in server.tokenized)
    estimated = project_actor_messages(state, context, MAX_TOKENS, retry=False)
    assert len(exact[-1].text) < len(estimated[-1].text)  # the estimate would have overfilled the window
