"""A real OpenAI-compatible chat server on 127.0.0.1 that answers from a script.

Processes we do not control (a `codeheal` subprocess, `langgraph dev`) and ChatOpenAI's own
clients talk to it over real HTTP (`--model NAME --base-url server.url`), so tests need no
model. A script maps the request body to the reply text; the default heals `add`: the first
attempt subtracts, the reflector names the bug, any attempt that sees a reflection adds.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from codeheal.forms.module.prompts import ACTOR_SYSTEM, REFLECT_ASK
from codeheal.forms.project.prompts import FIX_LESSON_ASK, FIX_SYSTEM

BAD_ADD = "def add(a, b):\n    return a - b\n"
GOOD_ADD = "def add(a, b):\n    return a + b\n"
ADD_TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(0, 0) == 0\n"
ADD_TASK = "Write add(a, b) that returns the sum of a and b."
LESSON = "add subtracts instead of adding: return a + b, not a - b."

Script = Callable[[dict], str]


def is_actor(messages: list[dict]) -> bool:
    """A module-form actor request (the reflector's shares its system message and opening,
    and closes with REFLECT_ASK)."""
    return bool(messages) and messages[0].get("content") == ACTOR_SYSTEM and not any(
        REFLECT_ASK in str(m.get("content")) for m in messages if m.get("role") == "user"
    )


def is_fix_actor(messages: list[dict]) -> bool:
    """A project-form repair request (the reflector's shares its system message and prefix,
    and closes with FIX_LESSON_ASK)."""
    return bool(messages) and messages[0].get("content") == FIX_SYSTEM and not any(
        FIX_LESSON_ASK in str(m.get("content")) for m in messages if m.get("role") == "user"
    )


def heal_add(body: dict) -> str:
    """The default script: a wrong first attempt, a reflection, then the right code."""
    messages = body["messages"]
    if not is_actor(messages):
        return LESSON
    prompt = "\n".join(str(m.get("content")) for m in messages)
    code = GOOD_ADD if "Lessons from earlier failed attempts" in prompt else BAD_ADD
    return f"```python\n{code}```"


def replies_in_order(code_replies: list[str], reflection: str) -> Script:
    """Actor replies in order (the last one repeats); `reflection` for every reflector call."""
    remaining = list(code_replies)

    def script(body: dict) -> str:
        if not is_actor(body["messages"]):
            return reflection
        return remaining.pop(0) if len(remaining) > 1 else remaining[0]

    return script


def send_json(handler: BaseHTTPRequestHandler, payload: object, status: int = 200) -> None:
    """Answer a request of `handler` with `payload` as JSON, as a real HTTP server does."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class ScriptedServer:
    """Serves /v1/chat/completions from `script(body)` after `delay(body)` seconds (plain
    or streamed replies, with `timings(body)` when given), and /tokenize from `tokenize(content)`
    when given. Records request bodies in `requests` and their messages in
    `calls`. Use as a context manager."""

    def __init__(
        self, script: Script = heal_add, delay: Callable[[dict], float] = lambda body: 0.0,
        error: tuple[int, str] | None = None, tokenize: Callable[[str], list[int]] | None = None,
        timings: Callable[[dict], dict] | None = None, refuse: Callable[[dict], str | None] | None = None,
        pace: float = 0.0,
    ) -> None:
        self.script = script
        self.pace = pace
        """With pace > 0, a streamed reply comes word by word, this many seconds apart, as a
        server writes it token by token (else in one chunk)."""
        self.refuse = refuse
        """A 400's message for a request (None: answered), as a server refusing a prompt over
        its context does; a refused request is recorded in `requests` and `refused`."""
        self.refused: list[dict] = []
        self.timings = timings
        """The `timings` object of a reply to `body`, as llama.cpp's server adds it, when given."""
        self.error = error
        """(HTTP status, message) to answer every request with instead, as a failing server does."""
        self.tokenize = tokenize
        """Answers POST /tokenize as llama.cpp's server does, when given (a server without it
        answers 404 there, as other OpenAI-compatible servers do)."""
        self.tokenized: list[str] = []
        """The texts /tokenize was asked about, in order."""
        self.delay = delay
        self.requests: list[dict] = []
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

    @property
    def calls(self) -> list[list[dict]]:
        return [body.get("messages", []) for body in self.requests]

    def actor_calls(self) -> list[list[dict]]:
        return [c for c in self.calls if is_actor(c)]

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.released.set()
        self._server.shutdown()
        self._server.server_close()

    def _answer(self, body: dict) -> str:
        with self._lock:
            self.requests.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            self.released.wait(self.delay(body))
            with self._lock:
                return self.script(body)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if self.path == "/tokenize" and server.tokenize is not None:
                    with server._lock:
                        server.tokenized.append(body["content"])
                    send_json(self, {"tokens": server.tokenize(body["content"])})
                    return
                if not self.path.endswith("/chat/completions"):
                    self.send_error(404)
                    return
                if server.error is not None:
                    status, message = server.error
                    send_json(self, {"error": {"code": status, "message": message}}, status)
                    return
                if server.refuse is not None and (refusal := server.refuse(body)) is not None:
                    with server._lock:
                        server.requests.append(body)
                        server.refused.append(body)
                    send_json(self, {"error": {"code": 400, "message": refusal}}, 400)
                    return
                text = server._answer(body)
                head = {"id": f"chatcmpl-{len(server.requests)}", "created": int(time.time()),
                        "model": body.get("model", "scripted")}
                try:
                    if body.get("stream"):
                        self._stream(head, text)
                    else:
                        extra = {"timings": server.timings(body)} if server.timings is not None else {}
                        send_json(self, {
                            **head, "object": "chat.completion",
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": text}}],
                            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
                            **extra,
                        })
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client was killed while we were answering

            def _stream(self, head: dict, text: str) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = re.findall(r"\S+\s*|\s+", text) if server.pace else [text]
                deltas = [({"role": "assistant", "content": piece}, None) for piece in pieces]
                for delta, finish in (*deltas, ({}, "stop")):
                    chunk = {**head, "object": "chat.completion.chunk",
                             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(server.pace)
                self.wfile.write(b"data: [DONE]\n\n")

            def log_message(self, *args: object) -> None:
                pass

        return Handler
