"""Per-run settings, and the one resolver that layers them. Studio shows Context's fields as a
form; the CLI fills them from flags and pyproject.toml.

Every setting has one flat name: its flag (``--max-attempts``), its `[tool.codeheal]` key
(``max-attempts``), its environment variable (``CODEHEAL_MAX_ATTEMPTS``). `SETTINGS` lists
them; each lives in a Context field, itself or in one of its groups: `policy` (the loop's
switches), `e2b`, and each form's own (`module`, `project`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from codeheal import environment
from codeheal.errors import ConfigError
from codeheal.settings.module import ModuleSettings
from codeheal.settings.project import ProjectSettings
from codeheal.settings.checks import (
    LAYERS,
    Layer,
    check_form,
    check_values,
    contradictions,
    model_name,
)
from codeheal.settings.presets import (
    DEFAULT_POLICY,
    PRESET_LIMITS,
    PRESETS,
    SWITCHES,
    Policy,
    PolicyName,
    default_policy,
)
from codeheal.settings.values import choices, default_of, from_text, hint_of, setting
from codeheal.state import FormName

__all__ = [
    "SETTINGS", "Context", "E2BSettings", "ModuleSettings", "Policy", "PolicyName", "ProjectSettings",
    "Resolved", "current_context", "model_name", "resolve", "resolve_context", "settings_of",
]

SandboxKind = Literal["local", "e2b"]
Isolation = Literal["bwrap", "basic"]


@dataclass(kw_only=True)
class E2BSettings:
    """The E2B sandbox (sandbox="e2b"); a field left unset (None) is resolved as Context's are."""

    template: str = setting("code-interpreter-v1", "The template each remote sandbox is created from.", unset=True)
    lifetime_s: int = setting(
        300,
        "Seconds a remote sandbox may live before E2B kills it; the backstop should codeheal be "
        "unable to kill it when its test run ends (one sandbox per test run).",
        unset=True,
    )


@dataclass(kw_only=True)
class Context:
    """How one run of the loop is carried out.

    A field given a value keeps it, whatever the environment says. A field left unset
    (None) is taken from the environment variable ``CODEHEAL_<SETTING>`` when that is set
    (for example ``CODEHEAL_MODEL=gpt-4o-mini``), else from the default shown in its
    description; `resolve` has the whole order. After construction every field holds its
    resolved value: `policy` a Policy, `e2b`, `module` and `project` their settings.
    """

    model: str = setting(
        "local",
        '"local" for the embedded offline model (Qwen2.5-Coder-1.5B; "local-0.5b" for the small one), '
        "an OpenAI model name, or any model name served at base_url (vLLM, Ollama, llama.cpp).",
        unset=True,
    )
    base_url: str | None = setting(None, "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1.", unset=True)
    then_models: tuple[str, ...] = setting(
        (),
        "The model ladder: models that take over, in order, when the run is stuck on the one "
        "before it. Each is a model name (served at base_url, or an embedded one), or NAME@URL "
        "for one served at another OpenAI-compatible endpoint. The run's max_attempts are shared "
        "out: each model writes an equal share (the earlier ones one more while a remainder is "
        "left; the last one every attempt left) and hands over sooner when it is stuck. The next "
        "model continues with the run's memory: its first attempt is shown the last failure and "
        "the reflections, whatever the policy. Each attempt records the model that wrote it.",
        unset=True,
    )
    prefill: Literal["auto", "on", "off"] = setting(
        "auto",
        "Start the model's reply for it: the code fence, and the task's function stub when it "
        "shows one, so the model writes only the body; generation stops at the closing fence. "
        'Needs a server that continues a final assistant message (llama.cpp does). "auto": on '
        "for the embedded model and .gguf files, off for other endpoints and for a chat model "
        "passed to build_graph.",
        unset=True,
    )
    policy: PolicyName | Policy = setting(
        DEFAULT_POLICY,
        "The loop's strategy, a named preset of its switches. "
        'The presets: "adaptive" (a failure shown when its kind says what the prompt lacked, a fresh sample at rising temperature after a wrong value, no repair of a repair, what pays learned per model; in the project form, which cannot sample fresh, the failure and a reflection), "one_shot" (one attempt), "resample" (independent samples, no failure shown), '
        '"raw_error" (the failure shown, no reflection), "self_heal" (failure, reflection, '
        'fresh start when stuck), "sample_first" (fresh samples first, two per retry at rising '
        "temperature, a failure shown only when it names a wrong value or a crash in the code, "
        "stop on a repeat), \"hedged\" (sample_first whose first retry writes one of its two samples "
        "shown an informative failure, the other fresh). Applied as a unit: switches set below the layer that names it (the "
        "environment's, for a policy given) do not change it. In Python, a Policy too: a preset "
        'with changes, e.g. Policy.preset("self_heal", reflect=False).',
        unset=True,
        shown='"hedged" in the module form (`codeheal solve`) with an embedded model (the measured winner there); '
        'else "adaptive"',
    )
    max_attempts: int = setting(
        3, 'Hard cap on attempts (generate + test) in one run (policy "one_shot": 1).', unset=True,
    )
    max_tokens: int | None = setting(
        None,
        "Token budget of one run, prompts and completions counted. Checked before every model "
        'call: a call that might not fit is not made, and the run ends with status "budget". '
        "None: no budget.",
        unset=True,
    )
    timeout_s: float | None = setting(
        None,
        "Wall-clock limit of one test run in the sandbox, seconds. None: 10 s for a module's "
        "tests; in the project form (`codeheal fix`) up to 120 s for the project as it is, then "
        "3x the time that run took, at least 10 s, for each repair's runs (at least 4 s for a "
        "screened mutant's once that run finished). A limit set here bounds them all; "
        "the whole run's is deadline_s.",
        unset=True,
    )
    deadline_s: float = setting(
        600.0,
        "Wall-clock limit of the whole run, seconds, from its start to its answer. No attempt or "
        "reflection starts once less than a model call's least time is left; a model call or a "
        "test run still running at the limit is cut, a screen sends no more batches, and the run ends with status "
        '"deadline" and its best attempt so far. The default is a few minutes: the limit a user '
        "waits at a terminal or in a hook, enough for the project as it is, the screen and a "
        "few model attempts on a one-line bug.",
        unset=True,
    )
    sandbox: SandboxKind = setting('local', '"local" (default, no account) or "e2b" (needs E2B_API_KEY).', unset=True)
    isolation: Isolation = setting(
        "bwrap",
        'Local sandbox: "bwrap" runs candidates inside bubblewrap and fails with an error naming '
        'the install command where it is missing; "basic" runs them as plain child processes '
        "with resource limits only (no filesystem, network or process isolation): choose it "
        "only for code you trust.",
        unset=True,
    )
    e2b: E2BSettings = dataclasses.field(default=None, metadata={"description": "The E2B sandbox's settings."})
    tamper_scan: bool = setting(
        True,
        "Fail a candidate, before it runs, that reaches into the test harness (imports pytest or "
        "codeheal's plugin, walks frames or the heap, traces, reaches other modules through "
        "sys.modules, exits at import; project form: comparison methods that ignore their "
        "argument). Turn off for code that legitimately needs one of these.",
        unset=True,
    )
    review_on_exhaustion: bool = setting(
        False,
        "When the attempts run out, pause for a human to accept the best "
        "attempt, abort, or retry with a hint (needs a checkpointer; Studio has one).",
        unset=True,
    )
    module: ModuleSettings = dataclasses.field(
        default=None, metadata={"description": "The module form's own settings (`codeheal solve`)."})
    project: ProjectSettings = dataclasses.field(
        default=None, metadata={"description": "The project form's own settings (`codeheal fix`)."})

    def __post_init__(self) -> None:
        values, sources = _layered({"given": _flat(self)})
        check_values(values, CHOICES, HINTS)
        contradictions(values, sources)
        for field in dataclasses.fields(self):
            setattr(self, field.name, _field_value(values, field.name))


GROUPS: dict[str, type] = {"policy": Policy, "e2b": E2BSettings, "module": ModuleSettings, "project": ProjectSettings}
"""Context fields that hold several settings, and the dataclass of each."""


@dataclass(frozen=True)
class Spec:
    """One setting: its flat name, and where it lives in a Context."""

    name: str
    group: str | None
    """The Context field that holds it (GROUPS), or None for a field of its own."""
    attr: str
    """Its field: of Context, or of its group's dataclass."""
    owner: type

    @property
    def hint(self) -> object:
        """Its type annotation."""
        return hint_of(self.owner, self.attr)

    @property
    def description(self) -> str:
        """What it does, as Studio and `--help` show it."""
        field = next(f for f in dataclasses.fields(self.owner) if f.name == self.attr)
        if self.group != "policy":
            return field.metadata["description"]
        # A Policy field's own default is self_heal's: a switch's is the default policy's value.
        text = field.metadata["description"].rsplit(" Default: ", 1)[0]
        return f"{text} Set by the policy: {self.default!r} under {DEFAULT_POLICY}."

    @property
    def default(self) -> object:
        """Its value when nothing names one; a switch's is DEFAULT_POLICY's (a model without a measured default)."""
        if self.group == "policy":
            return getattr(PRESETS[DEFAULT_POLICY], self.attr)
        return default_of(next(f for f in dataclasses.fields(self.owner) if f.name == self.attr))


def _specs() -> dict[str, Spec]:
    specs: dict[str, Spec] = {}
    for field in dataclasses.fields(Context):
        group = GROUPS.get(field.name)
        if group is None or field.name == "policy":
            specs[field.name] = Spec(field.name, None, field.name, Context)
        if group is not None:
            prefix = "e2b_" if field.name == "e2b" else ""
            for inner in dataclasses.fields(group):
                if inner.name != "name":
                    specs[prefix + inner.name] = Spec(prefix + inner.name, field.name, inner.name, group)
    return specs


SETTINGS = _specs()
"""Every setting by its flat name, in Context's order (a group's settings in its place)."""
CHOICES = {
    "policy": tuple(PRESETS),
    **{name: allowed for name, spec in SETTINGS.items() if (allowed := choices(spec.hint)) is not None},
}
"""The values each setting of a few allows: a preset's name, or a Literal's."""
HINTS = {name: spec.hint for name, spec in SETTINGS.items()}
"""Every setting's type annotation, by flat name: the plain type its value must have."""


def settings_of(context: Context) -> dict[str, object]:
    """Every setting of a resolved Context by flat name (the policy by its name and switches),
    as records and `resolve` take them."""
    return {name: _field_value_of(context, spec) for name, spec in SETTINGS.items()}


def _field_value_of(context: Context, spec: Spec) -> object:
    if spec.group is None:
        value = getattr(context, spec.attr)
        return value.name if isinstance(value, Policy) else value
    return getattr(getattr(context, spec.group), spec.attr)


def _flat(context: Context) -> dict[str, object]:
    """The settings a Context was given (its fields not None), by flat name. A Policy gives its
    name and the switches it changes from that preset; a preset's name is accepted for it, or
    a dict of switches (with "name", the preset they change; without, the policy named below).
    A group may be given as a dict."""
    given: dict[str, object] = {}
    for field in dataclasses.fields(Context):
        value = getattr(context, field.name)
        if value is None:
            continue
        if field.name == "policy":
            if isinstance(value, Policy):
                given |= {"policy": value.name, **value.changes()}
            elif isinstance(value, Mapping):  # Studio's: switches, and the preset they change if named
                given |= {("policy" if k == "name" else k): v for k, v in value.items()}
            else:
                given["policy"] = value
        elif field.name in GROUPS:
            if isinstance(value, Mapping):
                value = GROUPS[field.name](**value)
            prefix = "e2b_" if field.name == "e2b" else ""
            given |= {prefix + k: v for k, v in dataclasses.asdict(value).items() if v is not None}
        else:
            given[field.name] = value
    return given


def _group(values: Mapping[str, object], group: str) -> dict[str, object]:
    return {spec.attr: values[name] for name, spec in SETTINGS.items() if spec.group == group}


def _environment() -> dict[str, object]:
    """The settings the environment names (CODEHEAL_<SETTING>), read now."""
    layer = {}
    for name, spec in SETTINGS.items():
        text = environment.setting(name)
        if text is not None:
            layer[name] = from_text(name, spec.hint, text, environment.SETTING_PREFIX + name.upper())
    return layer


def _layered(layers: Mapping[Layer, Mapping[str, object]],
             form: FormName | None = None) -> tuple[dict[str, object], dict[str, str]]:
    """Every setting's value, and where it came from (a layer, "policy" or "default"): see
    `resolve`. `layers` holds the config, saved and given layers; the environment's is read;
    `form` and the model they name decide the default policy."""
    above: list[tuple[Layer, Mapping[str, object]]] = [
        ("environment", _environment()), *((layer, layers[layer]) for layer in LAYERS[2:] if layer in layers),
    ]
    model = next((values_["model"] for _, values_ in reversed(above) if "model" in values_), SETTINGS["model"].default)
    default = default_policy(model, form) if isinstance(model, str) else DEFAULT_POLICY
    stack: list[tuple[Layer, Mapping[str, object]]] = [("default", {"policy": default}), *above]
    unknown = sorted({name for _, layer in stack for name in layer} - set(SETTINGS))
    if unknown:
        raise ConfigError(f"no such setting: {', '.join(unknown)}")
    named_at = max(i for i, (_, layer) in enumerate(stack) if "policy" in layer)
    name = stack[named_at][1]["policy"]
    if name not in PRESETS:
        check_values({"policy": name}, CHOICES, HINTS)
    preset = {**{k: getattr(PRESETS[name], k) for k in SWITCHES}, **PRESET_LIMITS.get(name, {})}
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for setting_name, spec in SETTINGS.items():
        lowest = named_at if setting_name in preset else 0
        found = next(((layer, values_) for layer, values_ in reversed(stack[lowest:]) if setting_name in values_), None)
        if found is not None:
            sources[setting_name], values[setting_name] = found[0], found[1][setting_name]
        elif setting_name in preset:
            sources[setting_name], values[setting_name] = "policy", preset[setting_name]
        else:
            sources[setting_name], values[setting_name] = "default", spec.default
    return values, sources


@dataclass(frozen=True)
class Resolved:
    """A run's settings, resolved."""

    context: Context
    explicit: dict[str, object]
    """The settings its user set (config, saved or given), by flat name: what a run saves, so
    that a resumed run keeps them and takes any other from the defaults of its day."""


def resolve(
    given: Mapping[str, object] | None = None,
    *,
    config: Mapping[str, object] | None = None,
    saved: Mapping[str, object] | None = None,
    form: FormName | None = None,
) -> Resolved:
    """A run's Context from its settings by flat name (`SETTINGS`), in this order, each layer
    over the ones before it:

    1. the defaults (the default policy: settings.presets.default_policy of the model the
       layers above name and of `form`, the module form's when it is not given; and each
       setting's default);
    2. the environment, CODEHEAL_<SETTING> (CODEHEAL_POLICY among them: a default policy);
    3. `config`, pyproject.toml's [tool.codeheal] with the form's table over it;
    4. `saved`, the settings a resumed run's user set when it started;
    5. `given`, the caller's (the CLI's flags).

    A named policy is applied as a unit: a layer that names one discards the switches (and,
    for one_shot, max_attempts) of the layers below it, so CODEHEAL_MAX_ATTEMPTS=5 with
    policy="one_shot" given makes one attempt; a switch at the same layer or above changes it.

    Raises ConfigError, before any model call, for a value its setting does not allow, for a
    contradiction (naming both settings and where each came from: memory=0 with reflect on;
    one_shot with more attempts; a switch that shapes feedback with feedback off), and, with
    `form`, for a setting given for the other form (the environment's are left to apply to
    the form they fit)."""
    layers = {layer: dict(values) for layer, values in (("config", config), ("saved", saved), ("given", given))
              if values}
    values, sources = _layered(layers, form)
    check_values(values, CHOICES, HINTS)
    contradictions(values, sources)
    if form is not None:
        check_form(form, sources)
    context = Context(**{field.name: _field_value(values, field.name) for field in dataclasses.fields(Context)})
    explicit = {name: values[name] for name, source in sources.items() if source in ("config", "saved", "given")}
    return Resolved(context, explicit)


def _field_value(values: Mapping[str, object], field: str) -> object:
    if field == "policy":
        return Policy(**{"name": values["policy"], **{k: values[k] for k in SWITCHES}})
    if field in GROUPS:
        return GROUPS[field](**_group(values, field))
    if field == "then_models":  # given as a list by the flags, a config file and a saved run
        return tuple(values[field])
    return values[field]


def resolve_context(context: Context | dict | None) -> Context:
    """The run's Context. LangGraph passes None when no context was given, and a parent
    graph may pass its own context object through to an embedded codeheal (counted as none)."""
    if isinstance(context, Context):
        return context
    if isinstance(context, dict):
        return Context(**{k: v for k, v in context.items() if k in _FIELD_NAMES})
    return Context()


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(Context))


def current_context() -> Context:
    """The Context of the graph run this is called from."""
    from langgraph.runtime import get_runtime

    return resolve_context(get_runtime().context)
