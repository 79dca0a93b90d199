"""Policy.seed: a seeded run gives every reply its own seed, by its place (attempt, then the
reply's place in it), one reply per request, so a rerun draws the same samples and two
policies draw the same fresh sample in the same place; an unseeded run sends no seed. A bad
seed is refused before any model call."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from scripted_openai import ADD_TESTS, BAD_ADD, GOOD_ADD, ScriptedServer, is_actor

from codeheal import Context, build_graph
from codeheal.context import Policy, resolve
from codeheal.errors import ConfigError
from codeheal.prompting.model_call import ModelCall, invoke_model
from codeheal.prompting.generated_inputs import INPUTS_SYSTEM

TASK = {"task": "Add two numbers.", "tests": ADD_TESTS}
MULTIPLY = "def add(a, b):\n    return a * b\n"


def fenced(code: str) -> str:
    return f"```python\n{code}```"


def by_seed(body: dict) -> str:
    """A sampler as a seeded server is one: the reply is a function of the seed alone, and
    only the fifth sample of the third attempt (seed 2001 after base 0) adds."""
    seed = body.get("seed")
    return fenced(GOOD_ADD if seed == 7 + 2001 else (BAD_ADD if seed is None or seed % 2 else MULTIPLY))


def run(policy: str, seed: int | None) -> tuple[dict, list[dict]]:
    """A run under the preset `policy` seeded `seed`, and its actor requests."""
    with ScriptedServer(by_seed) as server:
        context = Context(model="scripted", base_url=server.url, policy=Policy.preset(policy, seed=seed), max_attempts=3)
        result = build_graph().compile().invoke(TASK, context=context)
    return result, [r for r in server.requests if is_actor(r["messages"])]


def test_each_reply_is_seeded_by_its_place_and_a_rerun_repeats_the_run():
    first, requests = run("sample_first", 7)
    assert [r.get("seed") for r in requests] == [7, 1007, 1008, 2007, 2008]
    assert all(r.get("n", 1) == 1 for r in requests)
    assert (first["status"], first["attempts"]) == ("passed", 3)
    again, _ = run("sample_first", 7)
    assert [a["code"] for a in again["history"]] == [a["code"] for a in first["history"]]


def test_two_policies_draw_the_same_fresh_sample_in_the_same_place():
    _, fresh = run("sample_first", 7)
    _, hedged = run("hedged", 7)
    # hedged's first retry: one sample shown the failure (place 0), then the fresh one (place 1)
    assert [r.get("seed") for r in hedged][:3] == [7, 1007, 1008]
    assert hedged[2]["seed"] == fresh[2]["seed"] and hedged[2]["messages"] == fresh[2]["messages"]
    assert hedged[1]["messages"] != fresh[1]["messages"]  # the shown sample's prompt


def by_role(body: dict) -> str:
    """Attempt 1 subtracts, every later attempt adds; a reflection, and inputs for the choice by
    execution, where asked (the reply does not depend on the seed)."""
    messages = body["messages"]
    if messages[0]["content"] == INPUTS_SYSTEM:
        return fenced("add(1, 2)\nadd(0, 5)\n")
    if not is_actor(messages):
        return "add subtracts: return a + b."
    return fenced(BAD_ADD if len([m for m in messages if m["role"] == "user"]) == 1 and body.get("seed") == 3
                  else GOOD_ADD)


@pytest.mark.parametrize(("settings", "asks"), [
    ({"policy": "self_heal"}, "a lesson"),
    ({"policy": "sample_first", "select_samples": 2}, "generated inputs"),
])
def test_every_model_call_of_a_seeded_run_is_seeded_at_any_temperature(settings: dict, asks: str) -> None:
    with ScriptedServer(by_role) as server:
        given = {"model": "scripted", "base_url": server.url, "seed": 3, "temperature": 0.5, **settings}
        # one assert and a named function: a pass is followed by the choice by execution where asked
        weak = {**TASK, "tests": "assert add(2, 3) == 5\n", "entry_point": "add"}
        result = build_graph().compile().invoke(weak, context=resolve(given).context)
    other = [r for r in server.requests if not is_actor(r["messages"])]  # the reflection, or the inputs
    assert result["status"] == "passed" and other, asks
    assert all(isinstance(r.get("seed"), int) for r in server.requests), [r.get("seed") for r in server.requests]


def test_an_unseeded_run_sends_no_seed():
    _, requests = run("sample_first", None)
    assert requests and all("seed" not in r for r in requests)


def test_a_seeded_call_asks_one_reply_per_request_even_where_the_server_takes_n():
    with ScriptedServer(lambda body: f"reply {body.get('seed')} n={body.get('n', 1)}") as server:
        model = ChatOpenAI(model="scripted", base_url=server.url, api_key="x", temperature=0.9)
        replies = invoke_model(ModelCall(model, [HumanMessage("hi")], samples=3, per_call=3, seed=40))
    assert [text for text, _ in replies] == ["reply 40 n=1", "reply 41 n=1", "reply 42 n=1"]


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_a_bad_seed_is_refused_naming_it(seed: object) -> None:
    with pytest.raises(ConfigError, match="seed must be an integer"):
        resolve({"seed": seed})


def test_a_bad_seed_in_the_environment_is_refused_naming_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEHEAL_SEED", "abc")
    with pytest.raises(ConfigError, match="CODEHEAL_SEED"):
        Context()
