"""Per-run settings. Studio shows these fields as a form; the CLI fills them from flags."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from typing import Any, Literal, get_args, get_origin, get_type_hints

from codeheal import environment
from codeheal.errors import ConfigError

SandboxKind = Literal["local", "e2b"]
Isolation = Literal["bwrap", "basic"]
PolicyName = Literal["one_shot", "resample", "raw_error", "self_heal", "sample_first"]
FeedbackWhen = Literal["always", "informative"]

_SELF_HEAL = {"feedback": True, "feedback_when": "always", "fresh_attempts": 0, "reflect": True,
              "fresh_start": True, "retry_samples": 1, "temperature_step": 0.0, "show_failed_code": False,
              "stop_on_repeat": False}
POLICY_FIELDS = tuple(_SELF_HEAL)
"""The loop's switches that a policy preset sets (one_shot also caps max_attempts at 1)."""
PRESETS: dict[str, dict[str, object]] = {
    "one_shot": {**_SELF_HEAL, "max_attempts": 1},
    "resample": {**_SELF_HEAL, "feedback": False},
    "raw_error": {**_SELF_HEAL, "reflect": False},
    "self_heal": _SELF_HEAL,
    "sample_first": {**_SELF_HEAL, "feedback_when": "informative", "fresh_attempts": 2, "reflect": False,
                     "retry_samples": 2, "temperature_step": 0.15, "stop_on_repeat": True},
}
"""What each named policy sets: the benchmark's conditions, and what a user gets by naming one.
A field the caller (or the environment) sets wins over its policy's value."""
DEFAULT_POLICY: PolicyName = "resample"
"""Chosen on the HumanEval tuning slices by the mean hidden pass rate over budgets of 1,000 to
6,000 tokens, averaged over both embedded models; docs/benchmarks.md has each budget. A project (`codeheal fix`) has one starting
point and no fresh samples: its retries see the failure and, with `reflect` on (as here), a lesson."""


def setting(default: object, description: str) -> Any:
    """A Context field: unset (None) until resolved; `default` applies when the environment
    does not name a value either. (Kept under json_schema_extra: Studio's schema builder,
    pydantic, passes field metadata on as Field arguments.)"""
    shown = "none" if default is None else repr(default)
    return field(default=None, metadata={
        "description": f"{description} Default: {shown}.",
        "json_schema_extra": {"fallback": default},
    })


def policy_setting(name: str, description: str) -> Any:
    """A Context field that the run's policy sets unless the caller or the environment does;
    its default is the default policy's value."""
    return setting(PRESETS[DEFAULT_POLICY][name], f"{description} Set by `policy` unless given.")


def fallback(name: str) -> object:
    """The default of Context field `name`, used when neither the caller nor the
    environment gives a value."""
    return _FIELDS[name].metadata["json_schema_extra"]["fallback"]


@dataclass(kw_only=True)
class Context:
    """How one run of the loop is carried out.

    A field given a value keeps it, whatever the environment says. A field left unset
    (None) is taken from the environment variable ``CODEHEAL_<FIELD>`` when that is set
    (for example ``CODEHEAL_MODEL=gpt-4o-mini``), else from the default shown in its
    description. After construction every field holds its resolved value.
    """

    model: str = setting(
        "local",
        '"local" for the embedded offline model (Qwen2.5-Coder-1.5B; "local-0.5b" for the small one), '
        "an OpenAI model name, or any model name served at base_url (vLLM, Ollama, llama.cpp).",
    )
    base_url: str | None = setting(
        None,
        "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1.",
    )
    policy: PolicyName = setting(
        DEFAULT_POLICY,
        "The loop's strategy, a named preset of the switches marked \"set by `policy`\": "
        '"one_shot" (one attempt), "resample" (independent samples, no failure shown; in the project form, '
        'which cannot sample fresh, the failure and a lesson), '
        '"raw_error" (the failure shown, no reflection), "self_heal" (failure, reflection, '
        'fresh start when stuck), "sample_first" (fresh samples first, two per retry at rising '
        "temperature, a failure shown only when it names a wrong value or a crash in the code, "
        "stop on a repeat). A switch given explicitly wins over its policy's value.",
    )
    temperature: float = setting(
        0.0,
        "Sampling temperature of the first attempt.",
    )
    retry_temperature: float = setting(
        0.7,
        "Sampling temperature of later attempts: some variety helps a retry "
        "escape the first attempt's mistake.",
    )
    temperature_step: float = policy_setting(
        "temperature_step",
        "Added to retry_temperature for each retry after the first (up to 1.0, "
        "policy.MAX_RETRY_TEMPERATURE): later samples vary more.",
    )
    show_failed_code: bool = policy_setting(
        "show_failed_code",
        "Show the failed attempt's code in the retry prompt. Off by default: "
        "the embedded 0.5B model mostly copies code it is shown, and healed 1 of 16 "
        "HumanEval failures with it against 6 of 16 without (benchmarks/retry_prompt.py; "
        "the retry still sees the failed checks and the lessons). Worth turning on for "
        "stronger models.",
    )
    retry_samples: int = policy_setting(
        "retry_samples",
        "Candidates the actor writes on each later attempt, at "
        "retry_temperature. They are tested in parallel and the first that passes (else the "
        "one that passes the most checks) is kept: small models tend to copy a failed attempt, and several samples "
        "escape that at the price of more tokens.",
    )
    select_samples: int = setting(
        0,
        "When an attempt passes tests of fewer than 2 checks (too weak to trust), draw this "
        "many more candidates from the first prompt, have the model write checks of its own, "
        "and keep the candidate that most others agree with on them (CodeT-style). Generated "
        "checks only choose among candidates that pass your tests; they never decide the "
        "verdict. 0: off.",
    )
    mutants: int = setting(
        80,
        "Project form (`codeheal fix`): before the first model call, screen up to this many "
        "one-line mutations of the most suspicious lines (a comparison, an operator, a constant "
        "or an index one off, a negated condition, swapped arguments, another local variable), "
        "each tested like a repair; one that passes heals the run without a model call. This "
        "attempt does not count against max_attempts. 0: off.",
    )
    context_size: int = setting(
        0,
        "The model's context window in tokens, which the project form's prompts (`codeheal "
        "fix`) are fitted to. 0: ask the "
        "server at base_url (llama.cpp, vLLM, Ollama), else 4096 for the embedded model and 16384 "
        "for others.",
    )
    prefill: Literal["auto", "on", "off"] = setting(
        "auto",
        "Start the model's reply for it: the code fence, and the task's function stub when it "
        "shows one, so the model writes only the body; generation stops at the closing fence. "
        'Needs a server that continues a final assistant message (llama.cpp does). "auto": on '
        "for the embedded model and .gguf files, off for other endpoints and for a chat model "
        "passed to build_graph.",
    )
    feedback: bool = policy_setting(
        "feedback",
        "Show a failed attempt's failure (and the lessons) to the next attempt. Off: every "
        "attempt is written from the first attempt's prompt, an independent sample "
        "(plain resampling, the baseline healing must beat).",
    )
    feedback_when: FeedbackWhen = policy_setting(
        "feedback_when",
        'With feedback on, which failures are shown. "always": every one. "informative": only '
        "a failed check that shows the wrong value (with the call that produced it) or a crash "
        "whose traceback reaches the code; after any other failure (a syntax error, a timeout, "
        "a check without values) the next attempt is a fresh sample.",
    )
    fresh_attempts: int = policy_setting(
        "fresh_attempts",
        "How many retries are fresh samples (written from the first attempt's prompt) before "
        "any failure is shown.",
    )
    memory: int = setting(
        5,
        "How many of the latest lessons the actor sees (0: none). The thread keeps them all.",
    )
    fresh_start: bool = policy_setting(
        "fresh_start",
        "When two attempts in a row fail the same way, the conversation is stuck: write the "
        "next attempt from the first attempt's prompt instead (a new sample, no failure shown). "
        'If that fails the same way too, the run ends with status "stuck".',
    )
    max_tokens: int | None = setting(
        None,
        "Token budget of one run, prompts and completions counted. Checked before every model "
        'call: a call that might not fit is not made, and the run ends with status "budget". '
        "None: no budget.",
    )
    max_attempts: int = setting(
        3,
        "Hard cap on attempts (generate + test) in one run.",
    )
    timeout_s: float | None = setting(
        None,
        "Wall-clock limit of one test run in the sandbox, seconds. None: 10 s for a module's "
        "tests; in the project form (`codeheal fix`) up to 120 s for the project as it is, then "
        "3x the time that run took, at least 10 s, for each repair's runs.",
    )
    reflect: bool = policy_setting(
        "reflect",
        "Write a reflection after a failure that the next attempt is shown (with feedback on; "
        "in the project form always). Off: the actor sees only the raw failure (the ablation "
        "the HumanEval benchmark compares against).",
    )
    stop_on_repeat: bool = policy_setting(
        "stop_on_repeat",
        'End the run (status "stuck") when every candidate of an attempt had been tried '
        "before: sampling found nothing new.",
    )
    sandbox: SandboxKind = setting(
        "local",
        '"local" (default, no account) or "e2b" (needs E2B_API_KEY).',
    )
    e2b_template: str = setting(
        "code-interpreter-v1",
        "E2B: the template each remote sandbox is created from.",
    )
    e2b_lifetime_s: int = setting(
        300,
        "E2B: seconds a remote sandbox may live before E2B kills it; the backstop should "
        "codeheal be unable to kill it when its test run ends (one sandbox per test run).",
    )
    isolation: Isolation = setting(
        "bwrap",
        'Local sandbox: "bwrap" runs candidates inside bubblewrap and fails with an error naming '
        'the install command where it is missing; "basic" runs them as plain child processes '
        "with resource limits only (no filesystem, network or process isolation): choose it "
        "only for code you trust.",
    )
    tamper_scan: bool = setting(
        True,
        "Fail a candidate, before it runs, that reaches into the test harness (imports pytest or "
        "codeheal's plugin, walks frames or the heap, traces, reaches other modules through "
        "sys.modules, exits at import; project form: comparison methods that ignore their "
        "argument). Turn off for code that legitimately needs one of these.",
    )
    lint: bool = setting(
        True,
        "Project form (`codeheal fix`): check each change with ruff before the tests run; a "
        "problem the change adds (an undefined name, an unused import) fails the attempt.",
    )
    review_on_exhaustion: bool = setting(
        False,
        "When the attempts run out, pause for a human to accept the best "
        "attempt, abort, or retry with a hint (needs a checkpointer; Studio has one).",
    )

    def __post_init__(self) -> None:
        if self.policy is None:
            self.policy = _unset_value("policy", fallback("policy"))
        preset = PRESETS.get(self.policy, {})  # an unknown name is refused by validate()
        for f in fields(self):
            if getattr(self, f.name) is None:
                setattr(self, f.name, _unset_value(f.name, preset.get(f.name, fallback(f.name))))
        self.validate()

    def validate(self) -> None:
        """Raise ConfigError naming the first invalid field."""
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be an integer >= 1, got {self.max_attempts!r}")
        if self.max_tokens is not None and (not isinstance(self.max_tokens, int) or self.max_tokens < 1):
            raise ConfigError(f"max_tokens must be an integer >= 1 or None, got {self.max_tokens!r}")
        if not isinstance(self.memory, int) or self.memory < 0:
            raise ConfigError(f"memory must be an integer >= 0, got {self.memory!r}")
        if not isinstance(self.retry_samples, int) or self.retry_samples < 1:
            raise ConfigError(f"retry_samples must be an integer >= 1, got {self.retry_samples!r}")
        if not isinstance(self.fresh_attempts, int) or self.fresh_attempts < 0:
            raise ConfigError(f"fresh_attempts must be an integer >= 0, got {self.fresh_attempts!r}")
        if not 0 <= self.temperature_step <= 1:
            raise ConfigError(f"temperature_step must be between 0 and 1, got {self.temperature_step!r}")
        if not isinstance(self.select_samples, int) or self.select_samples < 0:
            raise ConfigError(f"select_samples must be an integer >= 0, got {self.select_samples!r}")
        if self.timeout_s is not None and not self.timeout_s > 0:
            raise ConfigError(f"timeout_s must be > 0 seconds or None, got {self.timeout_s!r}")
        for name, allowed in _choices().items():
            if getattr(self, name) not in allowed:
                raise ConfigError(f"{name} must be {_one_of(allowed)}, got {getattr(self, name)!r}")
        if not isinstance(self.e2b_lifetime_s, int) or self.e2b_lifetime_s < 1:
            raise ConfigError(f"e2b_lifetime_s must be an integer >= 1 second, got {self.e2b_lifetime_s!r}")
        if not isinstance(self.mutants, int) or self.mutants < 0:
            raise ConfigError(f"mutants must be an integer >= 0, got {self.mutants!r}")
        if not isinstance(self.context_size, int) or self.context_size < 0:
            raise ConfigError(f"context_size must be an integer >= 0 tokens, got {self.context_size!r}")
        if not self.model:
            raise ConfigError("model must not be empty")
        for name in ("temperature", "retry_temperature"):
            if not 0 <= getattr(self, name) <= 2:
                raise ConfigError(f"{name} must be between 0 and 2, got {getattr(self, name)!r}")


@functools.cache
def _choices() -> dict[str, tuple[str, ...]]:
    """The fields typed as a Literal, and the values each allows."""
    hints = get_type_hints(Context)
    return {f.name: get_args(hints[f.name]) for f in fields(Context) if get_origin(hints[f.name]) is Literal}


def _one_of(allowed: tuple[str, ...]) -> str:
    quoted = [f'"{value}"' for value in allowed]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else quoted[0]


_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def _unset_value(name: str, default: object) -> object:
    env_value = environment.setting(name)
    return default if env_value is None else _parse_env(name, env_value)


def value_kind(name: str) -> type:
    """The plain type of Context field `name`: the first of bool, int and float its
    annotation names, else str."""
    hint = get_type_hints(Context)[name]
    kinds = get_args(hint) or (hint,)
    return next((k for k in (bool, int, float) if k in kinds), str)


def _parse_env(name: str, value: str) -> object:
    """An environment variable's text as the field's type; "none" unsets a field that may
    be None."""
    if fallback(name) is None and value.strip().lower() == "none":
        return None
    kind = value_kind(name)
    try:
        return _BOOLEANS[value.strip().lower()] if kind is bool else kind(value)
    except (KeyError, ValueError):
        raise ConfigError(f"{environment.SETTING_PREFIX}{name.upper()}={value!r} is not a valid {kind.__name__}") from None


_FIELDS = {f.name: f for f in fields(Context)}


def resolve_context(context: Context | dict | None) -> Context:
    """The run's Context. LangGraph passes None when no context was given, and a parent
    graph may pass its own context object through to an embedded codeheal (counted as none)."""
    if isinstance(context, Context):
        return context
    if isinstance(context, dict):
        known = {f.name for f in fields(Context)}
        return Context(**{k: v for k, v in context.items() if k in known})
    return Context()


def current_context() -> Context:
    """The Context of the graph run this is called from."""
    from langgraph.runtime import get_runtime

    return resolve_context(get_runtime().context)
