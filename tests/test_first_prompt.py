"""How the first attempt is asked for, checked on the wire with a scripted OpenAI-compatible
server: the reply prefilled with the task's stub (the default) or EvalPlus's prefix
(first_prompt="script"), and generation stopped at the closing fence."""

from __future__ import annotations

from scripted_openai import ADD_TESTS, ScriptedServer

from codeheal import Context, build_graph
from codeheal.forms.module.prompts import (
    SCRIPT_INSTRUCTION,
    SCRIPT_REPLY_START,
)
from codeheal.prompting.parts import CLOSING_FENCE

STUB_TASK = 'Add two numbers.\n\n```python\ndef add(a, b):\n    """a + b"""\n```'


def solve(server: ScriptedServer, **context) -> dict:
    app = build_graph().compile()
    settings = Context(model="scripted", base_url=server.url, prefill="on", max_attempts=1, **context)
    return app.invoke({"task": STUB_TASK, "tests": ADD_TESTS}, context=settings)


def test_the_stub_is_prefilled_and_the_model_writes_only_the_body():
    with ScriptedServer(script=lambda body: "    return a + b\n") as server:
        result = solve(server)
    (request,) = server.requests
    assert request["stop"] == [CLOSING_FENCE]
    assert request["messages"][-1] == {"role": "assistant", "content": '```python\ndef add(a, b):\n    """a + b"""\n'}
    assert result["status"] == "passed"
    assert result["code"] == 'def add(a, b):\n    """a + b"""\n    return a + b'


def test_script_style_asks_as_evalplus_does_and_the_model_writes_the_whole_module():
    with ScriptedServer(script=lambda body: "def add(a, b):\n    return a + b\n") as server:
        result = solve(server, first_prompt="script")
    (request,) = server.requests
    user, start = request["messages"]
    assert user["role"] == "user" and user["content"].startswith(SCRIPT_INSTRUCTION)  # no system prompt
    assert STUB_TASK in user["content"] and ADD_TESTS.strip() in user["content"]
    assert start == {"role": "assistant", "content": SCRIPT_REPLY_START} and request["stop"] == [CLOSING_FENCE]
    assert result["status"] == "passed" and result["code"].strip() == "def add(a, b):\n    return a + b"


def test_a_retry_after_a_script_style_first_attempt_shows_the_failure_in_codeheal_s_own_prompt():
    replies = iter(["def add(a, b):\n    return a - b\n", "lesson", "    return a + b\n"])
    with ScriptedServer(script=lambda body: next(replies)) as server:
        app = build_graph().compile()
        settings = Context(model="scripted", base_url=server.url, prefill="on", first_prompt="script")
        result = app.invoke({"task": STUB_TASK, "tests": ADD_TESTS}, context=settings)
    retry = server.requests[2]["messages"]
    assert retry[0]["role"] == "system" and "previous attempt failed" in retry[1]["content"]
    assert result["status"] == "passed"
