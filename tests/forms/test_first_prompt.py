"""How the first attempt is asked for, checked on the wire with a scripted OpenAI-compatible
server: the reply prefilled with the task's stub, and generation stopped at the closing fence.
(EvalPlus's prompt, once `first_prompt="script"`, is the benchmarks' own:
tests/bench/test_first_attempt.py.)"""

from __future__ import annotations

from scripted_openai import ADD_TESTS, ScriptedServer

from codeheal import Context, build_graph
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
