"""The settings refused, by flat name: a value its setting does not allow, a contradictory
combination, a setting given for the other form. Each error names the setting and where its
value came from, so that it is found where it was set."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal

from codeheal.errors import ConfigError
from codeheal.settings.module import MODULE_SWITCHES, ModuleSettings
from codeheal.settings.project import SET_BY_FORM, ProjectSettings
from codeheal.settings.presets import PRESETS
from codeheal.settings.values import expected, fits, one_of, optional
from codeheal.state import FormName

Layer = Literal["default", "environment", "config", "saved", "given"]
LAYERS: tuple[Layer, ...] = ("default", "environment", "config", "saved", "given")
"""The layers of a run's settings, each over the ones before it (codeheal.context.resolve)."""
SET_BY_USER = ("config", "saved", "given")
FEEDBACK_SWITCHES = ("feedback_when", "fresh_attempts", "fresh_start", "show_failed_code", "hedge")
"""Switches that shape what a retry is shown: meaningless with feedback off."""
MODULE_ONLY = (*(f.name for f in dataclasses.fields(ModuleSettings)), *MODULE_SWITCHES)
PROJECT_ONLY = tuple(f.name for f in dataclasses.fields(ProjectSettings))
NOT_FOR: dict[FormName, dict[str, str]] = {
    "module": {name: "a setting of the project form (`codeheal fix`)" for name in PROJECT_ONLY},
    "project": {
        **{name: "a setting of the module form (`codeheal solve`)" for name in MODULE_ONLY},
        **{name: "the project form sets it itself: every retry sees the failure, none is a fresh "
                 "sample, and a retry that finds nothing new ends the run" for name in SET_BY_FORM},
    },
}
"""The settings a form refuses, and why."""
COMMANDS: dict[FormName, str] = {"module": "`codeheal solve` (module form)", "project": "`codeheal fix` (project form)"}
_AT_LEAST = {
    "max_attempts": 1, "memory": 0, "retry_samples": 1, "fresh_attempts": 0, "select_samples": 0, "mutants": 0,
    "max_tokens": 1, "seed": 0, "e2b_lifetime_s": 1, "context_size": 0,
}
"""The integer settings' least values (None, where a setting allows it, is no bound)."""
_UNITS = {"e2b_lifetime_s": " second", "context_size": " tokens"}
_BETWEEN = {"temperature": 2, "retry_temperature": 2, "temperature_step": 1}


def check_values(values: Mapping[str, object], choices: Mapping[str, tuple[object, ...]],
                 hints: Mapping[str, object]) -> None:
    """Raise ConfigError naming the first setting of `values` whose value it does not allow;
    `choices`: the values each Literal-typed setting allows; `hints`: each setting's type
    annotation, whose plain type its value must have (values.fits: a switch given "false" or
    1 is refused, not read as true), checked before its bounds."""
    allowed = {"policy": tuple(PRESETS), **choices}
    for name, value in values.items():
        if name in allowed:
            if value not in allowed[name]:
                raise ConfigError(f"{name} must be {one_of(allowed[name])}, got {value!r}")
            continue
        if not fits(hints[name], value):
            raise ConfigError(f"{name} must be {expected(hints[name])}, got {value!r}")
        if name in _AT_LEAST and value is not None and value < _AT_LEAST[name]:
            none = " or None" if optional(hints[name]) else ""
            raise ConfigError(f"{name} must be an integer >= {_AT_LEAST[name]}{_UNITS.get(name, '')}{none}, "
                              f"got {value!r}")
        if name in _BETWEEN and not 0 <= value <= _BETWEEN[name]:
            raise ConfigError(f"{name} must be between 0 and {_BETWEEN[name]}, got {value!r}")
    if values.get("timeout_s") is not None and not values["timeout_s"] > 0:
        raise ConfigError(f"timeout_s must be > 0 seconds or None, got {values['timeout_s']!r}")
    if "deadline_s" in values and not values["deadline_s"] > 0:
        raise ConfigError(f"deadline_s must be > 0 seconds, got {values['deadline_s']!r}")
    if "model" in values and not values["model"]:
        raise ConfigError("model must not be empty")
    if "then_models" in values:
        check_ladder(values["then_models"], values.get("model"))


def check_ladder(then_models: object, model: object) -> None:
    """Raise ConfigError unless `then_models` names models, each once and none of them `model`
    (the run's first), each a name or NAME@URL with an http(s) URL."""
    if not isinstance(then_models, tuple | list) or not all(isinstance(m, str) and m.strip() for m in then_models):
        raise ConfigError(f"then_models must be model names, got {then_models!r}")
    names = [model_name(entry) for entry in then_models]
    for entry, name in zip(then_models, names, strict=True):
        url = entry.partition("@")[2]
        if not name or ("@" in entry and not url.startswith(("http://", "https://"))):
            raise ConfigError(f"then_models: {entry!r} is not NAME or NAME@URL with an http(s) URL, "
                              "e.g. gpt-4o-mini@https://api.openai.com/v1")
    repeated = sorted({n for n in names if names.count(n) > 1 or n == model})
    if repeated:
        raise ConfigError(f"then_models names {', '.join(repeated)} twice (the run's model is the ladder's "
                          "first): name each model once")


def model_name(entry: str) -> str:
    """A ladder entry's model name: NAME of NAME@URL."""
    return entry.partition("@")[0].strip()


def where(name: str, values: Mapping[str, object], sources: Mapping[str, str]) -> str:
    """A setting with its value and where that came from, e.g. "memory=0 (CODEHEAL_MEMORY)"."""
    source = sources[name]
    shown = {
        "environment": f"CODEHEAL_{name.upper()}", "config": "pyproject.toml [tool.codeheal]",
        "saved": "saved with the run", "given": "given", "policy": f"set by policy {values['policy']}",
        "default": "the default",
    }[source]
    return f"{name}={values[name]!r} ({shown})"


def contradictions(values: Mapping[str, object], sources: Mapping[str, str]) -> None:
    """Raise ConfigError for resolved settings that contradict each other, naming both."""
    if values["memory"] == 0 and values["reflect"]:
        raise ConfigError(
            f"{where('memory', values, sources)} contradicts {where('reflect', values, sources)}: the reflections "
            "written would reach no attempt; turn reflect off (--no-reflect) or keep memory >= 1"
        )
    if values["policy"] == "one_shot" and values["max_attempts"] != 1:
        raise ConfigError(
            f"{where('max_attempts', values, sources)} contradicts {where('policy', values, sources)}, which makes "
            f"one attempt: name another policy ({', '.join(p for p in PRESETS if p != 'one_shot')}) or drop max_attempts"
        )
    if 1 + len(values["then_models"]) > values["max_attempts"]:
        raise ConfigError(
            f"{where('then_models', values, sources)} contradicts {where('max_attempts', values, sources)}: "
            "the attempts are shared out among the run's model and each model it names, one at least "
            "each; raise max_attempts or name fewer models"
        )
    if values["hedge"] and values["retry_samples"] < 2:
        raise ConfigError(
            f"{where('hedge', values, sources)} contradicts {where('retry_samples', values, sources)}: a hedged "
            "retry writes one sample shown the failure and at least one fresh; raise retry_samples to 2 or drop hedge"
        )
    if not values["feedback"]:
        for name in FEEDBACK_SWITCHES:
            if sources[name] not in ("policy", "default"):
                raise ConfigError(
                    f"{where(name, values, sources)} contradicts {where('feedback', values, sources)}: it shapes "
                    "what a retry is shown, and with feedback off no retry is shown anything; turn feedback on "
                    "or drop it"
                )


def check_form(form: FormName, sources: Mapping[str, str]) -> None:
    """Raise ConfigError for a setting its user set (config, saved or given) that does not apply
    to a run of `form`."""
    for name, why in NOT_FOR[form].items():
        if sources.get(name) in SET_BY_USER:
            raise ConfigError(f"{name} does not apply to {COMMANDS[form]}: {why}")
