"""Per-run settings. Studio shows these fields as a form; the CLI fills them from flags."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Literal

from codeheal.errors import ConfigError

SandboxKind = Literal["local", "e2b"]
Isolation = Literal["bwrap", "basic"]
ENV_PREFIX = "CODEHEAL_"


@dataclass(kw_only=True)
class Context:
    """How one run of the loop is carried out.

    A field left at its default is taken from the environment variable
    ``CODEHEAL_<FIELD>`` when that is set (for example ``CODEHEAL_MODEL=gpt-4o-mini``).
    """

    model: str = field(
        default="local",
        metadata={
            "description": '"local" for the embedded offline model, an OpenAI model name, '
            "or any model name served at base_url (vLLM, Ollama, llama.cpp)."
        },
    )
    base_url: str | None = field(
        default=None,
        metadata={"description": "OpenAI-compatible endpoint, e.g. http://localhost:11434/v1."},
    )
    temperature: float = field(
        default=0.0,
        metadata={"description": "Sampling temperature of the first attempt."},
    )
    retry_temperature: float = field(
        default=0.7,
        metadata={
            "description": "Sampling temperature of later attempts: some variety helps a retry "
            "escape the first attempt's mistake."
        },
    )
    show_failed_code: bool = field(
        default=False,
        metadata={
            "description": "Show the failed attempt's code in the retry prompt. Off by default: "
            "the embedded 0.5B model mostly copies code it is shown, and healed 1 of 16 "
            "HumanEval failures with it against 6 of 16 without (benchmarks/retry_prompt.py; "
            "the retry still sees the failed checks and the lessons). Worth turning on for "
            "stronger models."
        },
    )
    retry_samples: int = field(
        default=1,
        metadata={
            "description": "Candidates the actor writes on each later attempt, at "
            "retry_temperature. The evaluator tests them in turn and keeps the one that passes "
            "the most checks: small models tend to copy a failed attempt, and several samples "
            "escape that at the price of more tokens."
        },
    )
    max_attempts: int = field(
        default=3,
        metadata={"description": "Hard cap on attempts (generate + test) in one run."},
    )
    timeout_s: float = field(
        default=10.0,
        metadata={"description": "Wall-clock limit of one evaluation in the sandbox, seconds."},
    )
    reflect: bool = field(
        default=True,
        metadata={
            "description": "Write a reflection after each failure. Off: the actor sees only the "
            "raw failure (the ablation the HumanEval benchmark compares against)."
        },
    )
    sandbox: SandboxKind = field(
        default="local",
        metadata={"description": '"local" (default, no account) or "e2b" (needs E2B_API_KEY).'},
    )
    e2b_template: str = field(
        default="code-interpreter-v1",
        metadata={"description": "E2B: the template each remote sandbox is created from."},
    )
    e2b_lifetime_s: int = field(
        default=300,
        metadata={
            "description": "E2B: seconds a remote sandbox may live before E2B kills it; the "
            "backstop should codeheal be unable to kill it at the end of the run."
        },
    )
    isolation: Isolation = field(
        default="bwrap",
        metadata={
            "description": 'Local sandbox: "bwrap" (default) runs candidates inside bubblewrap and '
            'fails with an error naming the install command where it is missing; "basic" runs '
            "them as plain child processes with resource limits only (no filesystem, network "
            "or process isolation): choose it only for code you trust."
        },
    )
    tamper_scan: bool = field(
        default=True,
        metadata={
            "description": "Fail a candidate, before it runs, that reaches into the test harness "
            "(imports pytest, touches sys.modules, builtins, atexit, frame or trace hooks, exits "
            "at import). Turn off for code that legitimately needs one of these."
        },
    )
    review_on_exhaustion: bool = field(
        default=False,
        metadata={
            "description": "When the attempts run out, pause for a human to accept the best "
            "attempt, abort, or retry with a hint (needs a checkpointer; Studio has one)."
        },
    )

    def __post_init__(self) -> None:
        for f in fields(self):
            env_value = os.environ.get(ENV_PREFIX + f.name.upper())
            if env_value is not None and getattr(self, f.name) == f.default:
                setattr(self, f.name, _parse_env(f.name, env_value, f.default))
        self.validate()

    def validate(self) -> None:
        """Raise ConfigError naming the first invalid field."""
        if not isinstance(self.max_attempts, int) or self.max_attempts < 1:
            raise ConfigError(f"max_attempts must be an integer >= 1, got {self.max_attempts!r}")
        if not isinstance(self.retry_samples, int) or self.retry_samples < 1:
            raise ConfigError(f"retry_samples must be an integer >= 1, got {self.retry_samples!r}")
        if not self.timeout_s > 0:
            raise ConfigError(f"timeout_s must be > 0 seconds, got {self.timeout_s!r}")
        if self.sandbox not in ("local", "e2b"):
            raise ConfigError(f'sandbox must be "local" or "e2b", got {self.sandbox!r}')
        if self.isolation not in ("bwrap", "basic"):
            raise ConfigError(f'isolation must be "bwrap" or "basic", got {self.isolation!r}')
        if not isinstance(self.e2b_lifetime_s, int) or self.e2b_lifetime_s < 1:
            raise ConfigError(f"e2b_lifetime_s must be an integer >= 1 second, got {self.e2b_lifetime_s!r}")
        if not self.model:
            raise ConfigError("model must not be empty")
        for name in ("temperature", "retry_temperature"):
            if not 0 <= getattr(self, name) <= 2:
                raise ConfigError(f"{name} must be between 0 and 2, got {getattr(self, name)!r}")


def _parse_env(name: str, value: str, default: object) -> object:
    try:
        if isinstance(default, bool):
            return value.lower() in ("1", "true", "yes")
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise ConfigError(f"{ENV_PREFIX}{name.upper()}={value!r} is not a valid {type(default).__name__}") from None
    return value


def resolve_context(context: Context | dict | None) -> Context:
    """The run's Context: LangGraph passes None when no context was given, and a parent
    graph may pass its own context object through to an embedded codeheal."""
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
