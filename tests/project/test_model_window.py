"""Asking an OpenAI-compatible server for its context size."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codeheal.project.model_window import context_size


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
