"""A real OpenAI-compatible chat server on 127.0.0.1 that answers from a script.

It lets a `codeheal` subprocess (or ChatOpenAI's async client) talk to a scripted model over
real HTTP: `--model scripted --base-url server.url`. The default script heals `add`: the
first attempt subtracts, the reflector names the bug, any attempt that sees a lesson adds.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from codeheal.nodes.prompts import ACTOR_SYSTEM

BAD_ADD = "def add(a, b):\n    return a - b\n"
GOOD_ADD = "def add(a, b):\n    return a + b\n"
ADD_TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(0, 0) == 0\n"
ADD_TASK = "Write add(a, b) that returns the sum of a and b."
LESSON = "add subtracts instead of adding: return a + b, not a - b."


def heal_add(messages: list[dict]) -> str:
    """The default script: a wrong first attempt, a lesson, then the right code."""
    prompt = "\n".join(str(m.get("content")) for m in messages)
    if not is_actor(messages):
        return LESSON
    code = GOOD_ADD if "Lessons from earlier failed attempts" in prompt else BAD_ADD
    return f"```python\n{code}```"


def is_actor(messages: list[dict]) -> bool:
    return bool(messages) and messages[0].get("content") == ACTOR_SYSTEM


class ScriptedServer:
    """Serves /v1/chat/completions from `script(messages) -> reply text` after `delay(messages)`
    seconds; records every request's messages in `calls`. Use as a context manager."""

    def __init__(
        self,
        script: Callable[[list[dict]], str] = heal_add,
        delay: Callable[[list[dict]], float] = lambda messages: 0.0,
    ) -> None:
        self.script = script
        self.delay = delay
        self.calls: list[list[dict]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.released = threading.Event()
        """Set when the server stops: a reply held back by `delay` is then cut short."""
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def actor_calls(self) -> list[list[dict]]:
        return [c for c in self.calls if is_actor(c)]

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, body: dict) -> dict:
        messages = body.get("messages", [])
        with self._lock:
            self.calls.append(messages)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self.released.wait(self.delay(messages))
            text = self.script(messages)
        finally:
            with self._lock:
                self.in_flight -= 1
        return {
            "id": f"chatcmpl-{len(self.calls)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "scripted"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                payload = json.dumps(server._answer(body)).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was killed while we were answering

            def log_message(self, *args: object) -> None:
                pass

        return Handler
