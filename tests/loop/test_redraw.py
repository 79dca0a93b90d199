"""A retry whose every reply repeats code that already failed in the run is drawn once more,
at the next retry's temperature, and the repeat is not tested again; a policy that stops on a
repeat (stop_on_repeat, the project form's) stops instead, once no failure is left to show."""

from __future__ import annotations

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, CountingSandbox, ScriptedModel, fenced
from scripted_openai import ADD_TASK, ScriptedServer, is_actor

from codeheal import Context, build_graph
from codeheal.context import Policy


def run(model: ScriptedModel, sandbox: CountingSandbox, **context: object) -> dict:
    app = build_graph(llm=model, sandbox=sandbox).compile()
    return app.invoke({"task": "Add two numbers.", "tests": ADD_TESTS}, context=Context(**context))


def test_a_retry_that_repeats_failed_code_is_drawn_again_within_its_attempt():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(BAD_ADD), fenced(GOOD_ADD)]))
    sandbox = CountingSandbox()
    result = run(model, sandbox, max_attempts=3, policy="sample_first")  # two fresh samples a retry
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert len(model.calls) == 3
    assert model.prompt(2) == model.prompt(1)  # the same prompt: a server reads it once
    assert len(sandbox.jobs) == 2  # the repeat was not run again
    retry = result["history"][1]
    assert retry["candidates_tested"] == 1 and not retry.get("repeat")


def test_a_redraw_that_repeats_again_is_tested_and_the_run_goes_on():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), "lesson", fenced(BAD_ADD), fenced(BAD_ADD),
                                         "lesson 2", fenced(GOOD_ADD)]))
    sandbox = CountingSandbox()
    result = run(model, sandbox, max_attempts=3, policy=Policy.preset("self_heal", fresh_start=False))
    assert (result["status"], result["attempts"]) == ("passed", 3)
    assert len(model.calls) == 6  # actor, reflector, actor twice (one redraw), reflector, actor
    assert len(sandbox.jobs) == 3  # attempt 2 found nothing new: its repeat is run, as before


def test_a_policy_that_stops_on_a_repeat_stops_instead_of_drawing_again():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), "lesson", fenced(BAD_ADD), fenced(GOOD_ADD)]))
    sandbox = CountingSandbox()
    result = run(model, sandbox, max_attempts=3, policy=Policy.preset("self_heal", stop_on_repeat=True))
    assert (result["status"], result["attempts"]) == ("stuck", 2)
    assert len(model.calls) == 3 and result["history"][1]["repeat"]


FRESH_FIRST = Policy.preset("sample_first", retry_samples=1)
"""Fresh samples for two retries, stop on a repeat (the embedded models' default without its hedge), one sample a retry."""


def test_fresh_samples_that_find_nothing_new_are_followed_by_a_retry_shown_the_failure():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(BAD_ADD), fenced(GOOD_ADD)]))
    result = run(model, CountingSandbox(), max_attempts=5, policy=FRESH_FIRST)
    assert (result["status"], result["attempts"]) == ("passed", 3)
    assert result["history"][1]["repeat"] and result["history"][1]["fresh_start"]
    assert model.prompt(1) == model.prompt(0)  # attempt 2: a fresh sample of the first prompt
    assert "add(2, 3)" in model.prompt(2) and "-1" in model.prompt(2)  # attempt 3 sees the failure
    assert not result["history"][2]["fresh_start"]


def test_a_repair_that_repeats_after_them_ends_the_run_stuck():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD)] * 3))
    result = run(model, CountingSandbox(), max_attempts=5, policy=FRESH_FIRST)
    assert (result["status"], result["attempts"]) == ("stuck", 3)
    assert len(model.calls) == 3


@pytest.mark.parametrize("policy", [
    Policy.preset("resample", stop_on_repeat=True),  # no failure is ever shown
    Policy.preset("sample_first", retry_samples=1, feedback_when="informative"),  # shown only if informative
])
def test_with_no_failure_to_show_a_repeat_of_fresh_samples_ends_the_run(policy: Policy) -> None:
    broken = "def add(a, b):\n    return a +\n"  # a SyntaxError says nothing the prompt lacked
    model = ScriptedModel(messages=iter([fenced(broken if policy.feedback else BAD_ADD)] * 3))
    result = run(model, CountingSandbox(), max_attempts=5, policy=policy)
    assert (result["status"], result["attempts"]) == ("stuck", 2)
    assert len(model.calls) == 2


@pytest.mark.default_policy
def test_the_redraw_goes_over_http_at_the_next_retry_s_temperature(tmp_path):
    def repeats_once(body: dict) -> str:
        actor = [b for b in server.requests if is_actor(b["messages"])]
        return fenced(GOOD_ADD if len(actor) >= 3 else BAD_ADD) if is_actor(body["messages"]) else "lesson"

    with ScriptedServer(repeats_once) as server:
        app = build_graph().compile()
        result = app.invoke({"task": ADD_TASK, "tests": ADD_TESTS},
                            context=Context(model="scripted", base_url=server.url, max_attempts=3))
    assert (result["status"], result["attempts"]) == ("passed", 2)
    first, retry = result["history"]
    assert retry["tokens"] > 1.5 * first["tokens"] > 0  # the attempt is charged for both replies
    temperatures = [b["temperature"] for b in server.requests if is_actor(b["messages"])]
    rules = Policy.preset("adaptive")
    assert temperatures == [rules.temperature, rules.retry_temperature,
                            rules.retry_temperature + rules.temperature_step]


@pytest.mark.default_policy
def test_code_that_differs_only_in_formatting_and_comments_is_a_repeat():
    reformatted = "# the sum\ndef add(a,b):\n\n    return a-b   # subtract\n"
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(reformatted), fenced(GOOD_ADD)]))
    sandbox = CountingSandbox()
    result = run(model, sandbox, max_attempts=3)
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert len(model.calls) == 3 and len(sandbox.jobs) == 2
