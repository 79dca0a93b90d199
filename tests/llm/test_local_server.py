"""The embedded model server: settings, errors, and (marked `model`) the real model end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest

from codeheal.errors import ConfigError, ModelError
from codeheal.llm import server
from codeheal.llm.server import (
    ServerSettings,
    choose_threads,
    ensure_server,
    local_draft,
    local_draft_max,
    local_settings,
    local_slots,
    local_speculative,
    local_threads,
    server_params,
    server_stats,
    thread_choice,
)

TWO_RUNS = """
import json
from codeheal import Context, build_graph
from codeheal.llm.discovery import arrival
from codeheal.llm.server import server_stats

graph = build_graph().compile()
request = {"task": "add two numbers", "tests": "assert add(2, 3) == 5"}
results = [graph.invoke(request, context=Context(model="local-0.5b")) for _ in range(2)]
print(json.dumps({
    "statuses": [r["status"] for r in results],
    "attempts": [r["attempts"] for r in results],
    "starts": server_stats().starts,
    "resident": arrival() is not None,
}))
"""


SETTINGS = [("CODEHEAL_LOCAL_SLOTS", local_slots), ("CODEHEAL_LOCAL_THREADS", local_threads)]


@pytest.mark.parametrize(("name", "read"), SETTINGS)
@pytest.mark.parametrize("value", ["0", "-2", "two"])
def test_invalid_server_settings_are_refused(
    monkeypatch: pytest.MonkeyPatch, name: str, read: Callable[[], int], value: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=name):
        read()


def test_settings_default_to_one_slot_and_threads_chosen_from_the_cores_and_load(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEHEAL_LOCAL_SLOTS", raising=False)
    monkeypatch.delenv("CODEHEAL_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3, 4, 5, 6, 7})
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 1.0, 1.0))
    settings = local_settings()
    assert (settings.slots, settings.threads) == (1, 5)
    assert settings.threads_why == "chosen: 8 cores, load 2.5 at start, one core left to the rest"
    monkeypatch.setenv("CODEHEAL_LOCAL_THREADS", "3")
    assert thread_choice() == (3, "CODEHEAL_LOCAL_THREADS=3")


@pytest.mark.parametrize(("cores", "load", "threads"), [
    (1, 0.0, 1), (2, 0.0, 1), (2, 3.5, 1), (4, 0.2, 3), (4, 1.5, 2), (8, 0.0, 7), (8, 9.0, 1),
])
def test_threads_leave_a_core_free_and_those_the_load_keeps_busy(cores: int, load: float, threads: int) -> None:
    assert choose_threads(cores, load) == threads


def test_speculative_decoding_defaults_to_prompt_lookup_and_refuses_unknown_or_draft_model_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CODEHEAL_LOCAL_SPECULATIVE", raising=False)
    assert local_speculative() == "NGRAM_MOD"
    monkeypatch.setenv("CODEHEAL_LOCAL_SPECULATIVE", "none")
    assert local_speculative() == "NONE"
    for value in ("DRAFT_SIMPLE", "fast"):  # a draft type needs a second model
        monkeypatch.setenv("CODEHEAL_LOCAL_SPECULATIVE", value)
        with pytest.raises(ConfigError, match="CODEHEAL_LOCAL_SPECULATIVE=.*NGRAM_MOD"):
            local_speculative()


def test_a_draft_model_is_off_by_default_and_must_be_an_embedded_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEHEAL_LOCAL_DRAFT", raising=False)
    monkeypatch.delenv("CODEHEAL_LOCAL_DRAFT_MAX", raising=False)
    assert (local_draft(), local_draft_max()) == (None, 8)
    monkeypatch.setenv("CODEHEAL_LOCAL_DRAFT", "none")
    assert local_draft() is None
    monkeypatch.setenv("CODEHEAL_LOCAL_DRAFT", "local-0.5b")
    monkeypatch.setenv("CODEHEAL_LOCAL_DRAFT_MAX", "16")
    assert (local_draft(), local_draft_max()) == ("local-0.5b", 16)
    monkeypatch.setenv("CODEHEAL_LOCAL_DRAFT", "tiny.gguf")
    with pytest.raises(ConfigError, match="CODEHEAL_LOCAL_DRAFT=.*local-0.5b"):
        local_draft()
    monkeypatch.setenv("CODEHEAL_LOCAL_DRAFT_MAX", "0")
    with pytest.raises(ConfigError, match="CODEHEAL_LOCAL_DRAFT_MAX"):
        local_draft_max()


def _types(params: object) -> list[str]:
    return [kind.name.removeprefix("COMMON_SPECULATIVE_TYPE_") for kind in params.speculative.types]


def test_the_server_params_carry_the_draft_model_alone_or_with_ngram_drafting(tmp_path: Path) -> None:
    main, draft = tmp_path / "main.gguf", tmp_path / "draft.gguf"
    plain = server_params(main, "m", ServerSettings(threads=2, slots=1))
    assert _types(plain) == ["NGRAM_MOD"] and plain.speculative.draft.mparams.path == ""
    assert not plain.fit_params and not plain.warmup  # start-up work that changes nothing on CPU
    assert _types(server_params(main, "m", ServerSettings(threads=2, slots=1, speculative="NONE"))) == ["NONE"]
    alone = server_params(main, "m", ServerSettings(threads=3, slots=1, speculative="NONE", draft="local-0.5b",
                                                     draft_max=4), draft)
    assert _types(alone) == ["DRAFT_SIMPLE"]
    assert (alone.model.path, alone.speculative.draft.mparams.path) == (str(main), str(draft))
    assert alone.speculative.draft.n_max == 4
    assert alone.speculative.draft.cpuparams.n_threads == alone.speculative.draft.cpuparams_batch.n_threads == 3
    both = server_params(main, "m", ServerSettings(threads=2, slots=1, draft="local-0.5b"), draft)
    assert _types(both) == ["DRAFT_SIMPLE", "NGRAM_MOD"] and both.speculative.draft.n_max == 8


def test_a_draft_model_that_is_not_installed_is_a_config_error_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def not_installed(**_: object) -> Path:
        raise ModelError("the qwen2.5-coder-0.5b model is not installed: run `codeheal model --get local-0.5b`")

    monkeypatch.setattr(server, "ensure_model", not_installed)
    before = server_stats()
    settings = ServerSettings(threads=1, slots=1, draft="local-0.5b")
    with pytest.raises(ConfigError, match="draft model local-0.5b.*codeheal model --get local-0.5b"):
        server.start(tmp_path / "main.gguf", "m", settings)
    assert server_stats() == before


@pytest.mark.parametrize(("name", "read"), SETTINGS)
def test_settings_follow_the_environment(
    monkeypatch: pytest.MonkeyPatch, name: str, read: Callable[[], int]
) -> None:
    monkeypatch.setenv(name, "3")
    assert read() == 3


def test_a_missing_gguf_file_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="does not exist"):
        ensure_server(str(tmp_path / "nowhere.gguf"))


def test_a_file_that_is_not_a_gguf_is_a_model_error_and_starts_nothing(tmp_path: Path) -> None:
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model" * 100)
    before = server_stats()
    with pytest.raises(ModelError, match="could not load"):
        ensure_server(str(junk))
    assert server_stats() == before


@pytest.mark.model
@pytest.mark.parametrize("serving", ["resident", "in-process"])
def test_a_library_process_uses_the_resident_server_or_one_server_of_its_own_for_two_graph_runs(serving: str) -> None:
    # A fresh interpreter, so the count covers exactly these two runs; it must also exit
    # cleanly (an in-process server stops at exit) with llama.cpp's logging kept off stderr.
    # Plumbing, so the small model runs it.
    done = subprocess.run(
        [sys.executable, "-c", TWO_RUNS], check=False, capture_output=True, text=True, timeout=280,
        env={**os.environ, "CODEHEAL_LOCAL_SERVER": serving},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["statuses"] == ["passed", "passed"]
    assert (result["starts"], result["resident"]) == ((0, True) if serving == "resident" else (1, False))
    assert "llama" not in done.stderr.lower()
    assert "load_tensors" not in done.stderr


@pytest.mark.model
def test_the_embedded_model_and_its_file_share_one_server(local_model_path: Path) -> None:
    embedded = ensure_server()
    starts = server_stats().starts
    assert ensure_server(str(local_model_path)) == embedded
    assert ensure_server() == embedded == ensure_server("local-1.5b")  # "local" is the 1.5B model
    assert server_stats().starts == starts
    assert embedded.base_url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(embedded.base_url + "/models", timeout=10) as response:
        served = json.load(response)
    assert [m["id"] for m in served["data"]] == [embedded.model_name] == ["qwen2.5-coder-1.5b"]


@pytest.mark.model
def test_the_embedded_server_counts_a_prompt_as_it_bills_it() -> None:
    """The counter asks the real server's /tokenize: a prompt counts within a few tokens of the
    prompt tokens the server reports for it, never fewer, and code takes fewer tokens than the
    estimate says (measured: 3.6 to 4.2 bytes per token; benchmarks/results/tokenize_check.json)."""
    from langchain_core.messages import HumanMessage, SystemMessage

    from codeheal import Context
    from codeheal.llm.factory import chat_model, local_endpoint, token_counter
    from codeheal.tokens import ESTIMATE, TokenCounter

    model = chat_model(Context(model="local-0.5b"), 0.0, 4)
    counter = token_counter(model)
    endpoint = local_endpoint("local-0.5b")  # the resident server's, and its token
    assert isinstance(counter, TokenCounter) and (counter.llama_cpp_url, counter.api_key) == (endpoint.base_url, endpoint.api_key)
    code = Path(__file__).read_text(encoding="utf-8")
    assert counter.tokens(code) < ESTIMATE.tokens(code)
    messages = [SystemMessage("You are a careful Python programmer."), HumanMessage("Fix this:\n" + code[:1500])]
    billed = model.invoke(messages).usage_metadata["input_tokens"]
    assert billed <= counter.prompt_tokens(messages) <= billed + 16


@pytest.mark.model
def test_a_seeded_call_to_the_embedded_model_repeats_and_each_reply_has_its_own_seed() -> None:
    """llama.cpp honours the request's seed: the same seeded call twice gives the same replies
    at a high temperature, and a call's two replies (seeds 5 and 6) differ (Policy.seed)."""
    from langchain_core.messages import HumanMessage

    from codeheal import Context
    from codeheal.llm.factory import chat_model
    from codeheal.prompting.model_call import ModelCall, invoke_model

    model = chat_model(Context(model="local-0.5b"), 1.0, 16)
    call = ModelCall(model, [HumanMessage("Write ten random English words.")], samples=2, seed=5)
    first, again = invoke_model(call), invoke_model(call)
    assert [text for text, _ in first] == [text for text, _ in again]
    assert first[0][0] != first[1][0]
