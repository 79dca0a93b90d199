"""Policy.hedge: the first retry of a policy that samples fresh first writes one sample shown the
failure (tested first) and the rest fresh, when the policy would show that failure; every other
retry is as the policy makes it. Refused, before any model call, where it cannot apply."""

from __future__ import annotations

import pytest
from doubles import ADD_TESTS, BAD_ADD, FIZZ_BAD, FIZZ_GOOD, FIZZ_TESTS, GOOD_ADD, ScriptedModel, fenced
from scripted_openai import ScriptedServer, is_actor

from codeheal import Context, build_graph
from codeheal.context import Policy, resolve
from codeheal.errors import ConfigError

TASK = {"task": "Add two numbers.", "tests": ADD_TESTS}
FAILED_BEFORE = "Your previous attempt failed these checks"
MULTIPLY = "def add(a, b):\n    return a * b\n"
BROKEN = "def add(a, b)\n    return a + b\n"
HEDGED = Policy.preset("sample_first", hedge=True)


def run(model: ScriptedModel, max_attempts: int = 3) -> dict:
    return build_graph(llm=model).compile().invoke(TASK, context=Context(policy=HEDGED, max_attempts=max_attempts))


def test_the_first_retry_sees_the_failure_in_one_sample_and_the_other_is_fresh():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(GOOD_ADD), fenced(MULTIPLY)]))
    result = run(model)
    assert (result["status"], result["attempts"]) == ("passed", 2)
    shown, fresh = model.prompt(1), model.prompt(2)
    assert FAILED_BEFORE in shown and "add(2, 3)" in shown and "-1" in shown  # the wrong value it gave
    assert fresh == model.prompt(0)  # a sample of the first prompt
    assert result["code"].strip() == GOOD_ADD.strip() and result["history"][1]["candidates_tested"] == 2


def test_a_shown_sample_that_repeats_its_mistake_leaves_the_fresh_one_its_chance():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(MULTIPLY), fenced(GOOD_ADD)]))
    result = run(model)
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert result["code"].strip() == GOOD_ADD.strip()


def test_only_the_first_retry_is_hedged_later_ones_are_the_policys_own():
    other = "def add(a, b):\n    return a - b + 0\n"
    replies = [fenced(BAD_ADD), fenced(MULTIPLY), fenced(other), fenced("def add(a, b):\n    return 0\n"),
               fenced(GOOD_ADD)]
    model = ScriptedModel(messages=iter(replies))
    result = run(model)
    assert (result["status"], result["attempts"]) == ("passed", 3)
    assert FAILED_BEFORE in model.prompt(1) and model.prompt(2) == model.prompt(0)
    assert model.prompt(3) == model.prompt(4) == model.prompt(0)  # attempt 3: two fresh samples (sample_first)


def test_a_failure_the_policy_would_not_show_gets_two_fresh_samples():
    model = ScriptedModel(messages=iter([fenced(BROKEN), fenced(MULTIPLY), fenced(GOOD_ADD)]))
    result = run(model)
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert model.prompt(1) == model.prompt(2) == model.prompt(0)  # a syntax error tells nothing new


def test_both_samples_are_drawn_at_the_first_retrys_temperature_over_the_wire():
    replies = iter(["a - b", "a * b", "a + b"])

    def script(body: dict) -> str:
        return f"```python\ndef add(a, b):\n    return {next(replies)}\n```"

    with ScriptedServer(script) as server:
        context = Context(model="scripted", base_url=server.url, policy=HEDGED, max_attempts=3)
        result = build_graph().compile().invoke(TASK, context=context)
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert [r.get("temperature", 0) for r in server.requests] == [0.0, 0.7, 0.7]
    assert all(is_actor(r["messages"]) for r in server.requests)
    assert FAILED_BEFORE in str(server.requests[1]["messages"]) and FAILED_BEFORE not in str(server.requests[2]["messages"])


@pytest.mark.parametrize(("given", "names"), [
    ({"policy": "sample_first", "hedge": True, "retry_samples": 1}, ("hedge=True", "retry_samples=1")),
    ({"policy": "resample", "hedge": True, "retry_samples": 2}, ("hedge=True", "feedback=False")),
])
def test_a_hedge_that_cannot_apply_is_refused_naming_both_settings(given: dict, names: tuple[str, ...]) -> None:
    with pytest.raises(ConfigError) as error:
        resolve(given)
    assert all(name in str(error.value) for name in names)


def test_the_project_form_refuses_a_hedge():
    with pytest.raises(ConfigError, match="hedge.*module form"):
        resolve({"hedge": True, "retry_samples": 2}, form="project")


@pytest.mark.default_policy
@pytest.mark.parametrize("model_name", ["local", "local-1.5b", "local-0.5b"])
def test_under_each_embedded_models_default_the_demos_first_retry_sees_its_failure(model_name: str) -> None:
    """The demo's shape (issue 36, item 5): a wrong value of the right kind at attempt 1; the
    first retry under the default writes one sample shown `'Fizz' == 'FizzBuzz'` and heals."""
    model = ScriptedModel(messages=iter([fenced(FIZZ_BAD), fenced(FIZZ_GOOD), fenced(FIZZ_BAD)]))
    result = build_graph(llm=model).compile().invoke({"task": "Fizz.", "tests": FIZZ_TESTS},
                                                     context=Context(model=model_name, max_attempts=3))
    assert (result["status"], result["attempts"]) == ("passed", 2)
    shown = model.prompt(1)
    assert FAILED_BEFORE in shown and "assert 'Fizz' == 'FizzBuzz'" in shown
    assert model.prompt(2) == model.prompt(0)  # the other sample is fresh
