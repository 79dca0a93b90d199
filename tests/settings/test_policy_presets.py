"""Named policy presets (Context.policy, a Policy) and the routing of sample_first: which retries are
fresh samples and which see the failure, how many samples, at which temperatures, and when
a run stops on a repeat."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest
from doubles import (ADD_TESTS, BAD_ADD, FIZZ_BAD, FIZZ_GOOD, FIZZ_TESTS, GOOD_ADD, ScriptedModel, fenced,
                     rewritten)
from scripted_openai import ScriptedServer, is_actor

from codeheal import Context, build_graph, learning
from codeheal.context import Policy, resolve
from codeheal.errors import ConfigError
from codeheal.forms.module.form import ModuleForm
from codeheal.forms.project.form import ProjectForm
from codeheal.rules import SHOWN_KINDS, after_evaluation, failure_kind, informative, sampling_temperature
from codeheal.settings.presets import PRESETS, SWITCHES
from codeheal.state import State

TASK = {"task": "Add two numbers.", "tests": ADD_TESTS}
FAILED_BEFORE = "Your previous attempt failed these checks"
MULTIPLY = "def add(a, b):\n    return a * b\n"
BROKEN = "def add(a, b)\n    return a + b\n"
CRASH = "def add(a, b):\n    return a + b + None\n"


def run(model: ScriptedModel, **context) -> dict:
    return build_graph(llm=model).compile().invoke(TASK, context=Context(**context))


def adaptive(model: ScriptedModel, **context) -> dict:
    return run(model, policy="adaptive", **context)


def taught_that_showing_a_crash_pays() -> None:
    """The choice is sampled (codeheal.learning); a store that has seen showing a crash (a
    TypeError, a NameError) pay 30 times, and a fresh sample after one never, makes it the
    rule's test, not a draw's."""
    for kind in SHOWN_KINDS:
        for action, progressed in (("shown", True), ("fresh", False)):
            for attempt in range(30):
                learning.record(None, "local", {"attempt": attempt, "kind": kind, "action": action}, progressed)


def test_every_preset_is_a_policy_of_its_name_with_every_switch_of_the_loop():
    assert set(SWITCHES) == {f.name for f in fields(Policy)} - {"name"}
    for name, preset in PRESETS.items():
        assert isinstance(preset, Policy) and preset.name == name
        assert Policy.preset(name) == preset and Policy.preset(name, reflect=False).reflect is False


@pytest.mark.default_policy
def test_the_default_is_each_embedded_models_measured_winner_and_adaptive_for_other_models():
    assert Context().policy == Context(model="local-1.5b").policy == Policy.preset("hedged")
    small = Context(model="local-0.5b").policy
    assert small == Policy.preset("hedged")
    assert small.hedge and replace(small, name="sample_first", hedge=False) == Policy.preset("sample_first")
    context = Context(model="gpt-4.1")
    policy = context.policy
    assert policy.name == "adaptive" and policy == Context(policy="adaptive").policy
    assert (policy.feedback, policy.reflect, policy.fresh_start, policy.retry_samples) == (True, True, True, 1)
    assert (policy.feedback_when, policy.fresh_attempts, policy.temperature_step) == ("by_kind", 0, 0.15)
    assert (policy.show_failed_code, policy.stop_on_repeat, context.max_attempts) == (False, False, 3)


@pytest.mark.default_policy
def test_adaptive_a_retry_after_a_wrong_value_is_a_fresh_sample_and_no_lesson_is_written():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(MULTIPLY), fenced(GOOD_ADD)]))
    result = adaptive(model)
    assert (result["status"], result["attempts"]) == ("passed", 3)
    assert len(model.calls) == 3 and model.prompt(1) == model.prompt(2) == model.prompt(0)
    assert result["reflections"] == []


@pytest.mark.default_policy
def test_adaptive_a_format_difference_is_shown_raw_to_the_first_retry():
    model = ScriptedModel(messages=iter([fenced(FIZZ_BAD), fenced(FIZZ_GOOD)]))
    result = build_graph(llm=model).compile().invoke({"task": "Fizz.", "tests": FIZZ_TESTS}, context=Context(policy="adaptive"))
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert len(model.calls) == 2 and result["reflections"] == []  # shown raw: no reflection
    assert FAILED_BEFORE in model.prompt(1) and "FizzBuzz" in model.prompt(1) and "'Fizz'" in model.prompt(1)


@pytest.mark.default_policy
def test_adaptive_a_crash_is_shown_but_a_repair_of_a_repair_is_not_made():
    taught_that_showing_a_crash_pays()
    divide = "def add(a, b):\n    return a / 0\n"
    unknown = "def add(a, b):\n    return a + c\n"
    model = ScriptedModel(messages=iter([fenced(CRASH), fenced(divide), fenced(unknown), fenced(GOOD_ADD)]))
    result = adaptive(model, max_attempts=4)
    assert (result["status"], result["attempts"]) == ("passed", 4)
    first = model.prompt(0)
    assert FAILED_BEFORE in model.prompt(1)  # a crash in the code: shown
    assert model.prompt(2) == first  # the repair failed again: a fresh sample
    assert FAILED_BEFORE in model.prompt(3)  # the fresh sample's crash: shown again


def test_a_failure_is_sorted_into_what_it_tells():
    crash = {**wrong_value(), "exception": "ZeroDivisionError", "expected": None, "actual": None, "line": 2}
    name = {**crash, "exception": "NameError", "message": "name 'x' is not defined"}
    signature = {**crash, "exception": "TypeError", "message": "add() takes 2 positional arguments but 3 were given"}
    assert failure_kind(feedback(wrong_value())) == "value"
    assert failure_kind(feedback({**wrong_value(), "expected": "'FizzBuzz'", "actual": "'Fizz'"})) == "format"
    assert failure_kind(feedback({**wrong_value(), "expected": "'a b'", "actual": "'A-B'"})) == "format"
    assert failure_kind(feedback({**wrong_value(), "expected": "'abc'", "actual": "'xyz'"})) == "value"
    assert failure_kind(feedback({**wrong_value(), "expected": "[1, 2]", "actual": "[1]"})) == "type"
    assert failure_kind(feedback({**wrong_value(), "expected": "'5'", "actual": "5"})) == "type"
    assert failure_kind(feedback({**wrong_value(), "expected": "5.0", "actual": "5"})) == "value"
    assert failure_kind(feedback({**wrong_value(), "expected": None, "actual": None})) == "opaque"
    assert failure_kind(feedback(crash)) == "crash"
    assert failure_kind(feedback({**crash, "line": None})) == "opaque"
    assert failure_kind(feedback(name)) == failure_kind(feedback(signature)) == "name"
    assert failure_kind(feedback({**crash, "exception": "TypeError", "message": "unsupported operand"})) == "type"
    assert failure_kind(feedback(wrong_value(), name)) == "name"  # the failure that tells most
    assert failure_kind(feedback({**crash, "test": "<compile>", "exception": "SyntaxError"}, error="bad")) == "syntax"
    assert failure_kind({**feedback(error="timed out after 10 s"), "timed_out": True}) == "timeout"
    assert failure_kind(feedback(error="no code in reply: the reply had no Python code block")) == "no_code"


def test_a_form_without_fresh_samples_reflects_under_resample_and_self_heal_but_not_raw_error():
    failed = State(feedback=feedback(wrong_value()), attempts=1, history=[
        {"attempt": 1, "summary": "failed", "code": BAD_ADD, "passed_count": 0, "tokens": 10}])
    for policy, project, module in (("resample", "reflector", "actor"), ("self_heal", "reflector", "reflector"),
                                    ("adaptive", "reflector", "actor"),
                                    ("raw_error", "actor", "actor"), ("sample_first", "actor", "actor")):
        context = Context(policy=Policy.preset(policy, fresh_attempts=0), max_attempts=3)
        assert after_evaluation(failed, context, ProjectForm().policy_for(context.policy)) == project, policy
        assert after_evaluation(failed, context, ModuleForm().policy_for(context.policy)) == module, policy


def test_the_project_form_derives_its_retry_rules_from_the_named_policy():
    rules = ProjectForm().policy_for(Policy.preset("sample_first", reflect=True, retry_samples=1))
    assert (rules.feedback, rules.feedback_when, rules.fresh_attempts, rules.fresh_start) == (True, "always", 0, False)
    assert (rules.stop_on_repeat, rules.retry_samples, rules.reflect, rules.temperature_step) == (True, 2, True, 0.15)
    assert ModuleForm().policy_for(PRESETS["sample_first"]) == PRESETS["sample_first"]


def test_a_preset_sets_the_switches_and_an_explicit_one_wins():
    resample = Context(policy="resample").policy
    assert (resample.feedback, resample.reflect) == (False, True)  # reflect: in the project form only
    assert Context(policy="raw_error").policy.reflect is False and Context(policy="raw_error").policy.feedback is True
    assert Context(policy="one_shot").max_attempts == 1
    assert Context(policy="one_shot", max_attempts=1).max_attempts == 1
    with pytest.raises(ConfigError, match="max_attempts=4 .* contradicts policy='one_shot'"):
        Context(policy="one_shot", max_attempts=4)  # issue 32: a contradiction, refused
    assert Context(policy=Policy.preset("resample", feedback=True)).policy.feedback is True
    sample_first = Context(policy=Policy.preset("sample_first", retry_samples=3)).policy
    assert (sample_first.retry_samples, sample_first.fresh_attempts, sample_first.stop_on_repeat) == (3, 2, True)


def test_the_environment_names_a_policy_and_its_switches_win_over_the_preset(monkeypatch):
    monkeypatch.setenv("CODEHEAL_POLICY", "resample")
    assert Context().policy.feedback is False
    assert Context(policy="self_heal").policy.feedback is True
    monkeypatch.setenv("CODEHEAL_FEEDBACK", "true")
    assert Context().policy.feedback is True
    assert Context(policy="resample").policy.feedback is False  # the caller named it: a unit


def test_a_policy_given_on_resume_replaces_the_saved_switches_it_sets():
    saved = resolve({"policy": "self_heal", "retry_samples": 3, "max_tokens": 900}).explicit
    resumed = resolve({"policy": "resample"}, saved=saved).context
    policy = resumed.policy
    assert (policy.name, policy.feedback, policy.reflect, policy.retry_samples) == ("resample", False, True, 1)
    assert resumed.max_tokens == 900  # not a switch of the policy: kept
    assert resolve({"max_attempts": 5}, saved=saved).context.policy.retry_samples == 3


def test_an_unknown_policy_is_refused_by_name():
    with pytest.raises(ConfigError, match="policy must be .*\"sample_first\" or \"hedged\", got 'greedy'"):
        Context(policy="greedy")


def wrong_value() -> dict:
    return {"test": "assert add(2, 3) == 5", "exception": "AssertionError", "message": "", "line": None,
            "frames": [], "expected": "5", "actual": "-1"}


def feedback(*failures: dict, error: str | None = None) -> dict:
    return {"passed": False, "total": 3, "passed_count": 0, "failures": list(failures), "error": error,
            "stdout": "", "stderr": "", "output_truncated": False, "timed_out": False, "seconds": 0.1,
            "isolation": "bwrap"}


def test_a_failure_is_informative_when_it_shows_a_wrong_value_or_a_crash_in_the_code():
    crash = {**wrong_value(), "exception": "TypeError", "expected": None, "actual": None, "line": 2}
    assert informative(feedback(wrong_value()))
    assert informative(feedback(crash))
    assert not informative(feedback({**crash, "line": None}))  # a crash outside the code
    assert not informative(feedback({**wrong_value(), "expected": None, "actual": None}))
    assert not informative(feedback({**crash, "test": "<compile>", "exception": "SyntaxError"}, error="bad"))
    assert not informative(feedback(error="timed out after 10 s"))


def test_retry_temperatures_rise_by_the_step_up_to_the_ceiling():
    rules = Context(policy=Policy.preset("self_heal", retry_temperature=0.7, temperature_step=0.15)).policy
    assert sampling_temperature(State(attempts=0), rules, retry=False) == 0.0
    assert [sampling_temperature(State(attempts=n), rules, retry=True) for n in (1, 2, 3, 4)] == [0.7, 0.85, 1.0, 1.0]
    assert sampling_temperature(State(attempts=3), Policy.preset("self_heal", retry_temperature=1.5), retry=True) == 1.5


def test_sample_first_draws_fresh_samples_first_then_shows_an_informative_failure():
    model = ScriptedModel(messages=iter([
        fenced(BAD_ADD),
        fenced(MULTIPLY), fenced(BAD_ADD),  # attempt 2: two fresh samples
        fenced(CRASH), fenced(MULTIPLY),  # attempt 3: two more
        fenced(GOOD_ADD), fenced(BAD_ADD),  # attempt 4: shown the failure
    ]))
    result = run(model, policy="sample_first", max_attempts=5)
    assert (result["status"], result["attempts"]) == ("passed", 4)
    assert len(model.calls) == 7  # no reflection: sample_first does not reflect
    first = model.prompt(0)
    assert model.prompt(1) == model.prompt(2) == model.prompt(3) == model.prompt(4) == first
    assert FAILED_BEFORE in model.prompt(5) and model.prompt(5) == model.prompt(6)
    assert result["reflections"] == []


def test_after_an_uninformative_failure_the_next_retry_is_a_fresh_sample():
    model = ScriptedModel(messages=iter([fenced(BROKEN), fenced(BAD_ADD), fenced(GOOD_ADD)]))
    result = run(model, policy=Policy.preset("raw_error", feedback_when="informative"), max_attempts=3)
    assert (result["status"], result["attempts"]) == ("passed", 3)
    assert model.prompt(1) == model.prompt(0)  # a syntax error: a fresh sample
    assert FAILED_BEFORE in model.prompt(2)  # a wrong value: shown


def test_a_fresh_sample_gets_no_reflection_even_when_the_policy_reflects():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(MULTIPLY), "It multiplies.", fenced(GOOD_ADD)]))
    result = run(model, policy=Policy.preset("self_heal", fresh_attempts=1), max_attempts=3)
    assert (result["status"], result["attempts"]) == ("passed", 3)
    assert model.prompt(1) == model.prompt(0)
    assert "It multiplies." in model.prompt(3) and result["reflections"] == ["It multiplies."]


def test_sample_first_shows_the_failure_when_fresh_samples_find_nothing_new_and_stops_when_that_repeats():
    model = ScriptedModel(messages=iter([fenced(BAD_ADD)] * 7))
    result = run(model, policy="sample_first", max_attempts=5)
    assert (result["status"], result["attempts"]) == ("stuck", 3)
    assert len(model.calls) == 5  # 1 + two samples of the first prompt + two shown the failure
    assert result["history"][1]["repeat"] is True and result["history"][2]["repeat"] is True
    assert model.prompt(2) == model.prompt(0) and FAILED_BEFORE in model.prompt(3)


def test_fresh_samples_that_fail_alike_do_not_end_a_sample_first_run():
    # Equal failures of fresh samples are not a stuck conversation: only a repeat of code ends it.
    other = "def add(a, b):\n    return a - b + 0\n"
    model = ScriptedModel(messages=iter([fenced(BAD_ADD), fenced(other), fenced(other), fenced(GOOD_ADD), fenced(BAD_ADD)]))
    result = run(model, policy="sample_first", max_attempts=5)
    assert (result["status"], result["attempts"]) == ("passed", 3)


def test_the_model_is_asked_for_each_retry_at_its_rising_temperature():
    wrong_bodies = iter(["a * b", "b - a", "0", "a", "b", "-a"])

    def script(body: dict) -> str:
        body_line = "a - b" if body.get("temperature", 0) == 0 else next(wrong_bodies)
        return f"```python\ndef add(a, b):\n    return {body_line}\n```"

    with ScriptedServer(script) as server:
        context = Context(model="scripted", base_url=server.url, policy="sample_first", max_attempts=4)
        result = build_graph().compile().invoke(TASK, context=context)
    assert (result["status"], result["attempts"]) == ("failed", 4)
    assert [r.get("temperature", 0) for r in server.requests] == [0.0, 0.7, 0.7, 0.85, 0.85, 1.0, 1.0]
    assert all(is_actor(r["messages"]) for r in server.requests)


@pytest.mark.default_policy
def test_adaptive_fresh_samples_failing_alike_do_not_end_the_run_as_stuck():
    taught_that_showing_a_crash_pays()
    model = ScriptedModel(messages=iter([fenced(rewritten(CRASH, take)) for take in range(4)] + [fenced(GOOD_ADD)]))
    result = adaptive(model, max_attempts=5)
    assert (result["status"], result["attempts"]) == ("passed", 5)
    assert [FAILED_BEFORE in model.prompt(i) for i in range(5)] == [False, True, False, True, False]


def test_adaptive_never_repairs_a_repair_whatever_the_counts_say():
    """Debugging decays within 2-3 attempts: under adaptive a failed repair is followed by a
    fresh sample even when what pays (`shows`) says show every kind, a repair follows only a
    fresh sample or attempt 1, so no repair of a repair is ever made."""
    from codeheal.rules import writes_fresh

    rules = Policy.preset("adaptive")
    crash = feedback({**wrong_value(), "exception": "ZeroDivisionError", "expected": None, "actual": None, "line": 2})

    def after(*fresh_starts: bool) -> State:
        history = [{"attempt": n, "code": "", "summary": f"failed {n}", "passed_count": 0, "total": 3,
                    "reflection": None, "tokens": 0, "seconds": 0.0, "fresh_start": fresh}
                   for n, fresh in enumerate(fresh_starts, start=1)]
        return State(attempts=len(history), history=history, feedback=crash)

    def always(kind: str) -> bool:
        return True

    assert not writes_fresh(after(False), rules, always)  # attempt 1 failed: repaired
    assert writes_fresh(after(False, False), rules, always)  # the repair failed: a fresh sample
    assert not writes_fresh(after(False, False, True), rules, always)  # the fresh one may be repaired
    assert writes_fresh(after(False, False, True, False), rules, always)
