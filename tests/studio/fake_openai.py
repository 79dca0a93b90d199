"""A tiny real OpenAI-compatible server for tests: POST /v1/chat/completions with scripted
replies, so a process we do not control (the `langgraph dev` server) can run codeheal
through ChatOpenAI without a model."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from codeheal.nodes.prompts import REFLECTOR_SYSTEM


class ScriptedReplies:
    """Code replies in order (the last one repeats) for the actor; a fixed lesson for the
    reflector, recognised by its system prompt."""

    def __init__(self, code_replies: list[str], reflection: str) -> None:
        self.code_replies = list(code_replies)
        self.reflection = reflection
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def reply_to(self, request: dict) -> str:
        with self.lock:
            self.requests.append(request)
            system = next((m["content"] for m in request["messages"] if m["role"] == "system"), "")
            if system == REFLECTOR_SYSTEM:
                return self.reflection
            return self.code_replies.pop(0) if len(self.code_replies) > 1 else self.code_replies[0]


def _handler(script: ScriptedReplies) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            if not self.path.endswith("/chat/completions"):
                self.send_error(404)
                return
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            text = script.reply_to(request)
            model = request.get("model", "fake")
            if request.get("stream"):
                self._stream(model, text)
            else:
                self._send_json({
                    "id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                })

        def _send_json(self, payload: dict) -> None:
            body = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _stream(self, model: str, text: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}
            for delta, finish in (({"role": "assistant", "content": text}, None), ({}, "stop")):
                data = {**chunk, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                self.wfile.write(f"data: {json.dumps(data)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002
            pass

    return Handler


@contextmanager
def fake_openai_server(script: ScriptedReplies) -> Iterator[str]:
    """Serve `script` on a free loopback port; yields the base URL (ending in /v1)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
