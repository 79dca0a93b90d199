"""Settings mean what they say: an explicit value always wins, the environment only fills
what was left unset and never changes a policy the caller named, a resumed run keeps what
its user set (and only that), contradictions and settings of the other form are refused,
and each command takes only its own flags."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doubles import ADD_TESTS, BAD_ADD, fenced, scripted

from codeheal import Context, build_graph
from codeheal.cli import _parser, _typed_settings, main
from codeheal.config_file import NO_FLAG, applies
from codeheal.context import (
    CHOICES,
    DEFAULT_POLICY,
    SETTINGS,
    Policy,
    ProjectSettings,
    resolve,
    resolve_context,
)
from codeheal.errors import ConfigError
from codeheal.llm.weights import LOCAL_MODELS, lasting_name
from codeheal.settings.presets import MODULE_POLICIES, default_policy
from codeheal.settings.values import is_sequence, kind, optional

TASK = "Add two numbers."


def test_an_explicit_value_equal_to_the_default_beats_the_environment(monkeypatch):
    monkeypatch.setenv("CODEHEAL_TEMPERATURE", "0.9")
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "5")
    assert resolve({"temperature": 0.0}).context.policy.temperature == 0.0
    assert Context(policy=Policy.preset("self_heal", temperature=0.0)).policy.temperature == 0.0
    assert Context(max_attempts=3).max_attempts == 3
    assert Context().policy.temperature == 0.9 and Context().max_attempts == 5


def test_the_attempt_cap_given_explicitly_is_the_cap_a_run_keeps(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "5")
    model = scripted(*[fenced(BAD_ADD), "lesson"] * 5)
    result = build_graph(llm=model).compile().invoke(
        {"task": TASK, "tests": ADD_TESTS}, context=Context(max_attempts=3, policy="self_heal"))
    assert result["attempts"] == 3


def test_no_context_and_studio_dicts_take_unset_fields_from_the_environment(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MODEL", "gpt-x")
    assert resolve_context(None).model == "gpt-x"
    assert resolve_context({"max_attempts": 2}).model == "gpt-x"
    assert resolve_context({"model": "local"}).model == "local"


def test_studio_dicts_may_name_a_policy_and_a_group_as_dicts(monkeypatch):
    monkeypatch.setenv("CODEHEAL_E2B_TEMPLATE", "from-env")
    context = resolve_context({"policy": {"name": "raw_error", "retry_samples": 2}, "e2b": {"lifetime_s": 60}})
    assert resolve_context({"policy": {"retry_samples": 3}}).policy.name == "self_heal"  # conftest's CODEHEAL_POLICY
    assert (context.policy.name, context.policy.reflect, context.policy.retry_samples) == ("raw_error", False, 2)
    assert (context.e2b.template, context.e2b.lifetime_s) == ("from-env", 60)


def test_a_bad_environment_value_is_named(monkeypatch):
    monkeypatch.setenv("CODEHEAL_REFLECT", "maybe")
    with pytest.raises(ConfigError, match="CODEHEAL_REFLECT='maybe'"):
        Context()


def test_context_has_at_most_16_fields_each_described():
    from dataclasses import fields

    assert len(fields(Context)) <= 16
    assert all(f.metadata.get("description") for f in fields(Context))


def test_an_environment_variable_never_overrides_a_policy_the_caller_named(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "5")
    monkeypatch.setenv("CODEHEAL_REFLECT", "false")
    assert Context(policy="one_shot").max_attempts == 1
    assert resolve({"policy": "one_shot"}).context.max_attempts == 1
    assert Context(policy="self_heal").policy.reflect is True
    # with no policy named, the environment's settings apply to the default one
    assert (Context().max_attempts, Context().policy.reflect) == (5, False)


def test_codeheal_policy_is_a_default_policy_below_the_config_and_the_flags(monkeypatch):
    monkeypatch.setenv("CODEHEAL_POLICY", "raw_error")
    assert Context().policy.name == "raw_error"
    assert resolve(config={"policy": "self_heal"}).context.policy.name == "self_heal"
    # a policy named in the config discards the environment's switches, not the config's own
    monkeypatch.setenv("CODEHEAL_RETRY_SAMPLES", "4")
    assert resolve(config={"policy": "self_heal"}).context.policy.retry_samples == 1
    assert resolve(config={"policy": "self_heal", "retry_samples": 3}).context.policy.retry_samples == 3
    # a flag's switch changes the policy the config named
    assert resolve({"reflect": False}, config={"policy": "self_heal"}).context.policy.reflect is False


@pytest.mark.default_policy
def test_the_default_policy_is_the_measured_winner_of_the_model_and_form_and_a_named_policy_beats_it(monkeypatch):
    # the embedded models' module-form default is their HumanEval winner, wherever the model is named
    for model in ("local", "local-0.5b", "local-1.5b"):
        assert Context(model=model).policy == Policy.preset(MODULE_POLICIES[model])
        assert resolve(config={"model": model}, form="module").context.policy.name == MODULE_POLICIES[model]
    assert resolve({"model": "gpt-4.1"}, config={"model": "local-0.5b"}).context.policy.name == DEFAULT_POLICY
    # the project form's default was measured on projects (QuixBugs, the seeded bugs): the same for every model
    assert resolve({"model": "local-0.5b"}, form="project").context.policy.name == DEFAULT_POLICY
    # a switch set below a default policy still changes it; a policy named anywhere wins
    monkeypatch.setenv("CODEHEAL_MODEL", "local-0.5b")
    monkeypatch.setenv("CODEHEAL_RETRY_TEMPERATURE", "0.9")
    assert (Context().policy.name, Context().policy.retry_temperature) == (MODULE_POLICIES["local-0.5b"], 0.9)
    assert resolve(config={"policy": "self_heal"}).context.policy.name == "self_heal"
    monkeypatch.setenv("CODEHEAL_POLICY", "raw_error")
    assert Context().policy.name == resolve(form="project").context.policy.name == "raw_error"


def test_every_name_of_a_local_model_has_the_default_policy_of_the_model_it_names():
    for name in LOCAL_MODELS:
        assert default_policy(name) == default_policy(lasting_name(name)), name


def test_a_run_saves_only_what_its_user_set_so_a_changed_default_applies_on_resume(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MODEL", "env-model")
    resolved = resolve({"max_attempts": 4}, config={"timeout_s": 30.0})
    assert resolved.explicit == {"max_attempts": 4, "timeout_s": 30.0}
    monkeypatch.setenv("CODEHEAL_MODEL", "newer-model")
    resumed = resolve({}, saved=resolved.explicit).context
    assert (resumed.model, resumed.max_attempts, resumed.timeout_s) == ("newer-model", 4, 30.0)


def test_a_cli_run_saves_its_flags_not_every_resolved_value(tmp_path: Path):
    from scripted_openai import ScriptedServer

    from codeheal.checkpointers import open_checkpointer
    from codeheal.runner import saved_settings

    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    db = tmp_path / "c.sqlite"
    with ScriptedServer() as server:
        code = main(["solve", TASK, "--tests", str(tests), "--model", "scripted", "--base-url", server.url,
                     "--max-attempts", "2", "--thread", "t1", "--checkpointer", str(db), "-q"])
    assert code == 0
    with open_checkpointer(str(db), must_exist=True) as saver:
        snapshot = build_graph().compile(checkpointer=saver).get_state({"configurable": {"thread_id": "t1"}})
    assert saved_settings(snapshot) == {"model": "scripted", "base_url": server.url, "max_attempts": 2}


def test_resume_flags_replace_saved_settings_even_when_they_equal_the_defaults(monkeypatch):
    monkeypatch.setenv("CODEHEAL_TIMEOUT_S", "99")
    saved = resolve({"timeout_s": 30.0, "model": "gpt-saved", "max_attempts": 4}).explicit
    args = _parser().parse_args(["resume", "T", "--timeout", "10", "--model", "local"])
    typed = _typed_settings(args)
    assert typed == {"timeout_s": 10.0, "model": "local"}
    context = resolve(typed, saved=saved).context
    assert (context.timeout_s, context.model, context.max_attempts) == (10.0, "local", 4)


@pytest.mark.parametrize(("settings", "named"), [
    ({"policy": "self_heal", "memory": 0}, ("memory=0 (given)", "reflect=True (set by policy self_heal)")),
    ({"policy": "one_shot", "max_attempts": 4}, ("max_attempts=4 (given)", "policy='one_shot' (given)")),
    ({"policy": "resample", "feedback_when": "informative"},
     ("feedback_when='informative' (given)", "feedback=False (set by policy resample)")),
    ({"feedback": False, "fresh_attempts": 1}, ("fresh_attempts=1 (given)", "feedback=False (given)")),
])
def test_contradictions_are_refused_naming_both_settings(settings, named):
    with pytest.raises(ConfigError) as error:
        resolve(settings)
    assert all(part in str(error.value) for part in named), str(error.value)


def test_contradictions_are_refused_in_a_context_too():
    with pytest.raises(ConfigError, match="memory=0 .* contradicts reflect=True"):
        Context(policy=Policy.preset("self_heal", memory=0))
    with pytest.raises(ConfigError, match="max_attempts=4 .* contradicts policy='one_shot'"):
        Context(policy="one_shot", max_attempts=4)
    assert Context(policy=Policy.preset("self_heal", memory=0, reflect=False)).policy.memory == 0


def test_contradictions_come_before_any_model_call(tmp_path: Path, capsys):
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    code = main(["solve", TASK, "--tests", str(tests), "--model", "nowhere", "--base-url", "http://127.0.0.1:9/v1",
                 "--policy", "one_shot", "--max-attempts", "3", "--checkpointer", str(tmp_path / "c.sqlite")])
    assert code == 2
    assert "max_attempts=3 (given) contradicts policy='one_shot' (given)" in " ".join(capsys.readouterr().err.split())


@pytest.mark.parametrize(("settings", "form", "message"), [
    ({"mutants": 5}, "module", "mutants does not apply to `codeheal solve`"),
    ({"select_samples": 3}, "project", "select_samples does not apply to `codeheal fix`"),
    ({"feedback": True}, "project", "feedback does not apply to `codeheal fix` (project form): the project form sets it"),
    ({"fresh_start": False}, "project", "fresh_start does not apply to `codeheal fix`"),
])
def test_settings_of_the_other_form_are_refused(settings, form, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        resolve(settings, form=form)
    with pytest.raises(ConfigError, match=re.escape(message)):
        resolve(config=settings, form=form)
    assert resolve(settings).context  # a Context of no form takes them


def test_the_environment_s_settings_of_the_other_form_are_left_to_the_form_they_fit(monkeypatch):
    monkeypatch.setenv("CODEHEAL_MUTANTS", "5")
    assert resolve({}, form="module").context.project == ProjectSettings(mutants=5, lint=True, regression="runs", context_size=0)


@pytest.mark.parametrize("argv", [
    ["solve", "t", "--tests", "x.py", "--mutants", "5"],
    ["solve", "t", "--tests", "x.py", "--no-lint"],
    ["fix", ".", "--select-samples", "3"],
    ["fix", ".", "--feedback"],
    ["fix", ".", "--show-failed-code"],
])
def test_a_flag_of_the_other_command_is_refused_with_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert f"unrecognized arguments: {argv[-2] if argv[-1].isdigit() else argv[-1]}" in capsys.readouterr().err


def test_resume_checks_its_flags_against_the_thread_s_form(tmp_path: Path, capsys):
    from langgraph.checkpoint.sqlite import SqliteSaver

    db = tmp_path / "c.sqlite"
    with SqliteSaver.from_conn_string(str(db)) as saver:  # a run that died writing attempt 2
        app = build_graph(llm=scripted(fenced(BAD_ADD), "lesson")).compile(checkpointer=saver)
        with pytest.raises(RuntimeError):
            app.invoke({"task": TASK, "tests": ADD_TESTS}, {"configurable": {"thread_id": "t1"}}, durability="sync")
    assert main(["resume", "t1", "--mutants", "5", "--checkpointer", str(db)]) == 2
    assert "mutants does not apply to `codeheal solve`" in capsys.readouterr().err


def test_every_setting_but_review_on_exhaustion_is_a_flag_of_the_commands_it_applies_to():
    args = _parser().parse_args([
        "solve", "t", "--tests", "x.py", "--no-reflect", "--show-failed-code",
        "--retry-samples", "2", "--isolation", "basic", "--retry-temperature", "0.5",
    ])
    assert _typed_settings(args) == {
        "reflect": False, "show_failed_code": True, "retry_samples": 2, "isolation": "basic",
        "retry_temperature": 0.5,
    }
    assert _typed_settings(_parser().parse_args(["solve", "t", "--tests", "x.py"])) == {}
    fix = _typed_settings(_parser().parse_args(["fix", ".", "--mutants", "5", "--no-lint", "--context-size", "8192"]))
    assert fix == {"mutants": 5, "lint": False, "context_size": 8192}
    for name in set(SETTINGS) - NO_FLAG:
        assert applies(name, "solve") or applies(name, "fix"), name


def _options(argv: list[str], capsys) -> list[str]:
    with pytest.raises(SystemExit):
        main(argv)
    return [line.split()[0].rstrip(",") for line in capsys.readouterr().out.splitlines()
            if re.match(r"^ {2,6}-", line)]


def test_help_shows_the_everyday_options_and_help_all_every_one(capsys):
    for command, base in (("solve", ["solve"]), ("fix", ["fix"])):
        everyday = _options([*base, "--help"], capsys)
        every = _options([*base, "--help-all"], capsys)
        assert len(everyday) <= 27, (command, len(everyday))  # fix: 27 with --check
        assert {"--model", "--policy", "--max-attempts", "--help-all"} <= set(everyday)
        assert "--retry-samples" not in everyday and "--retry-samples" in every
        assert set(everyday) < set(every)
    assert {"--mutants", "--lint"} <= set(_options(["fix", "--help"], capsys))  # --lint, --no-lint


def _wrong_values(name: str) -> list[object]:
    """Values of another type than setting `name`'s: each must be refused, not read loosely
    ("false" is truthy, True is the integer 1)."""
    hint = SETTINGS[name].hint
    if is_sequence(hint):
        return ["gpt-4o-mini", [1]]
    return {bool: ["false", 0, None], int: [True, 2.5, "3"], float: [True, "0.5"], str: [5, b"x"]}[kind(hint)]


@pytest.mark.parametrize("name", [name for name in SETTINGS if name not in CHOICES])
def test_every_setting_refuses_a_value_of_another_type_naming_it(name: str):
    for value in _wrong_values(name):
        if value is None and optional(SETTINGS[name].hint):
            continue
        with pytest.raises(ConfigError, match=rf"^{name} must be "):
            resolve({name: value})


def test_a_studio_dict_with_a_switch_as_text_is_refused_not_read_as_true():
    with pytest.raises(ConfigError, match="feedback must be true or false, got 'false'"):
        resolve_context({"policy": {"name": "resample", "feedback": "false"}})
    with pytest.raises(ConfigError, match="max_attempts must be an integer, got True"):
        Context(max_attempts=True)


def test_values_of_the_setting_s_own_type_are_taken():
    context = resolve({"temperature": 1, "seed": None, "max_tokens": None, "then_models": ["gpt-4o-mini"],
                       "timeout_s": 5}).context
    assert (context.policy.temperature, context.policy.seed, context.max_tokens) == (1, None, None)


def test_the_policys_help_names_the_default_each_run_gets() -> None:
    """`solve --help` names the policy the embedded models run (hedged), not the fallback alone."""
    from codeheal.settings.presets import MODULE_POLICIES, default_policy

    shown = SETTINGS["policy"].description.rsplit(" Default: ", 1)[1]
    assert {default_policy(model, "module") for model in MODULE_POLICIES} == {"hedged"}
    assert f'"hedged" in the module form (`codeheal solve`) with an embedded model' in shown
    assert default_policy("local", "project") == default_policy("gpt-4o", "module") == DEFAULT_POLICY
    assert shown.endswith(f'else "{DEFAULT_POLICY}".')
