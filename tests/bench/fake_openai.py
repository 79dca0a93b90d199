"""A tiny OpenAI-compatible chat server for benchmark tests: it answers each HumanEval prompt
with the problem's canonical solution, except where a test scripts a first wrong answer."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from codeheal.bench.problems import Problem


class FakeOpenAI:
    """Replies `prompt + canonical_solution` in a ```python block for the problem whose
    entry point the request mentions; at temperature 0 a problem in `wrong_first` gets
    `wrong_first[task_id]` instead. Records every request body."""

    def __init__(self, problems: list[Problem], wrong_first: dict[str, str]) -> None:
        self.problems = problems
        self.wrong_first = wrong_first
        self.requests: list[dict] = []

    def reply(self, body: dict) -> str:
        self.requests.append(body)
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        problem = next(p for p in self.problems if f"def {p.entry_point}(" in text)
        if body.get("temperature", 0) == 0 and problem.task_id in self.wrong_first:
            code = self.wrong_first[problem.task_id]
        else:
            code = problem.prompt + problem.canonical_solution
        return f"Here it is:\n```python\n{code}\n```\n"


@contextmanager
def serve(fake: FakeOpenAI) -> Iterator[str]:
    """Serve `fake` on 127.0.0.1; yields the base URL (ending in /v1)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            content = fake.reply(body)
            payload = json.dumps({
                "id": "fake", "object": "chat.completion", "created": 0, "model": body["model"],
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": content}}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
