"""Settings mean what they say: an explicit value always wins, the environment only fills
what was left unset, and a resumed run takes what the user typed over what was saved."""

from __future__ import annotations

from dataclasses import asdict

import pytest
from doubles import ADD_TESTS, BAD_ADD, fenced, scripted

from codeheal import Context, build_graph
from codeheal.cli import _parser, _typed_settings
from codeheal.context import resolve_context
from codeheal.errors import ConfigError
from codeheal.runner import merged_context


def test_an_explicit_value_equal_to_the_default_beats_the_environment(monkeypatch):
    monkeypatch.setenv("CODEHEAL_TEMPERATURE", "0.9")
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "5")
    assert Context(temperature=0.0).temperature == 0.0
    assert Context(max_attempts=3).max_attempts == 3
    assert Context().temperature == 0.9 and Context().max_attempts == 5


def test_the_attempt_cap_given_explicitly_is_the_cap_a_run_keeps(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "5")
    model = scripted(*[fenced(BAD_ADD), "lesson"] * 5)
    result = build_graph(llm=model).compile().invoke(
        {"task": "Add two numbers.", "tests": ADD_TESTS}, context=Context(max_attempts=3, reflect=True))
    assert result["attempts"] == 3


def test_no_context_and_studio_dicts_take_unset_fields_from_the_environment(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MODEL", "gpt-x")
    assert resolve_context(None).model == "gpt-x"
    assert resolve_context({"max_attempts": 2}).model == "gpt-x"
    assert resolve_context({"model": "local"}).model == "local"


def test_a_bad_environment_value_is_named(monkeypatch):
    monkeypatch.setenv("CODEHEAL_REFLECT", "maybe")
    with pytest.raises(ConfigError, match="CODEHEAL_REFLECT='maybe'"):
        Context()


def test_resume_flags_replace_saved_settings_even_when_they_equal_the_defaults(monkeypatch):
    monkeypatch.setenv("CODEHEAL_TIMEOUT_S", "99")
    saved = asdict(Context(timeout_s=30.0, model="gpt-saved", max_attempts=4))
    args = _parser().parse_args(["resume", "T", "--timeout", "10", "--model", "local"])
    typed = _typed_settings(args)
    assert typed == {"timeout_s": 10.0, "model": "local"}
    context = merged_context(saved, typed)
    assert (context.timeout_s, context.model, context.max_attempts) == (10.0, "local", 4)


def test_every_user_facing_context_field_is_a_cli_flag():
    args = _parser().parse_args([
        "solve", "t", "--tests", "x.py", "--no-reflect", "--show-failed-code",
        "--retry-samples", "2", "--isolation", "basic", "--retry-temperature", "0.5",
    ])
    assert _typed_settings(args) == {
        "reflect": False, "show_failed_code": True, "retry_samples": 2, "isolation": "basic",
        "retry_temperature": 0.5,
    }
    assert _typed_settings(_parser().parse_args(["solve", "t", "--tests", "x.py"])) == {}
