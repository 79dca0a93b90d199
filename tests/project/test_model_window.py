"""Asking an OpenAI-compatible server for its context size."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from scripted_openai import send_json

from codeheal.prompting.model_window import context_size


def serve(routes: dict[str, object]) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path not in routes:
                self.send_error(404)
                return
            body = json.dumps(routes[self.path]).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def llama_cpp() -> Iterator[str]:
    yield from serve({
        "/props": {"default_generation_settings": {"n_ctx": 4096}, "total_slots": 2},
        "/v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 32768}}]},
    })


@pytest.fixture
def vllm() -> Iterator[str]:
    yield from serve({"/v1/models": {"data": [{"id": "a", "max_model_len": 8192}, {"id": "b", "max_model_len": 2048}]}})


@pytest.fixture
def silent() -> Iterator[str]:
    yield from serve({"/v1/models": {"data": [{"id": "gpt"}]}})


def test_llama_cpp_reports_the_slot_context_not_the_training_one(llama_cpp: str) -> None:
    assert context_size(llama_cpp, default=1000) == 4096


def test_vllm_reports_max_model_len_per_model(vllm: str) -> None:
    assert context_size(vllm, default=1000) == 8192
    assert context_size(vllm, default=1000, model="b") == 2048


def test_otherwise_the_setting(silent: str) -> None:
    assert context_size(silent, default=1000) == 1000
    assert context_size(None, default=1000) == 1000
    assert context_size("http://127.0.0.1:9/v1", default=1000) == 1000


def serve_ollama(shown: dict[str, dict], loaded: list[dict]) -> Iterator[tuple[str, list[dict]]]:
    """A fake Ollama: /api/show answers a POSTed model name from `shown`, /api/ps lists `loaded`;
    llama.cpp's /props and vLLM's /v1/models fields are absent, as on a real Ollama."""
    asked: list[dict] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            routes = {"/api/ps": {"models": loaded}, "/v1/models": {"object": "list", "data": [{"id": m} for m in shown]}}
            if self.path in routes:
                send_json(self, routes[self.path])
            else:
                send_json(self, {"error": "404 page not found"}, 404)

        def do_POST(self) -> None:  # noqa: N802
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            asked.append(request)
            if self.path == "/api/show" and request.get("model") in shown:
                send_json(self, shown[request["model"]])
            else:
                send_json(self, {"error": f"model '{request.get('model')}' not found"}, 404)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", asked
    finally:
        server.shutdown()
        server.server_close()


QWEN_INFO = {"general.architecture": "qwen2", "qwen2.context_length": 32768, "qwen2.block_count": 28}


@pytest.fixture
def ollama() -> Iterator[tuple[str, list[dict]]]:
    yield from serve_ollama(
        {
            "qwen2.5-coder:7b": {"parameters": 'stop "<|im_end|>"', "model_info": QWEN_INFO},
            "qwen-16k": {"parameters": 'num_ctx                        16384\nstop "<|im_end|>"', "model_info": QWEN_INFO},
            "tiny": {"parameters": "num_ctx 8192", "model_info": {"llama.context_length": 2048}},
            "loaded": {"parameters": "", "model_info": QWEN_INFO},
        },
        loaded=[{"name": "loaded", "model": "loaded", "context_length": 65536}],
    )


def test_ollama_serves_4096_unless_num_ctx_is_set(ollama: tuple[str, list[dict]]) -> None:
    url, asked = ollama
    assert context_size(url, default=16384, model="qwen2.5-coder:7b") == 4096
    assert asked == [{"model": "qwen2.5-coder:7b"}], "asked with a POST naming the model"
    assert context_size(url, default=16384, model="qwen-16k") == 16384


def test_ollama_window_capped_by_the_model_and_read_from_a_loaded_model(ollama: tuple[str, list[dict]]) -> None:
    url, asked = ollama
    assert context_size(url, default=16384, model="tiny") == 2048
    asked.clear()
    assert context_size(url, default=16384, model="loaded") == 65536
    assert asked == [], "a loaded model's window comes from /api/ps"


def test_ollama_unknown_model_falls_back_to_the_setting(ollama: tuple[str, list[dict]]) -> None:
    url, _ = ollama
    assert context_size(url, default=1000, model="missing") == 1000
