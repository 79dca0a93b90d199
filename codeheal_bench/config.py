"""What every benchmark run is given: where its results go, the model, and the loop's caps. Each
benchmark's config extends this one."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codeheal import Context, lasting_name, resolve


@dataclass(frozen=True)
class RunConfig:
    """One benchmark invocation. The model is held under the name that stays with it
    (`codeheal.lasting_name`): a record names the model, not the alias, so a resume never pairs
    records of one model with another."""

    out_dir: Path
    model: str = "local"
    base_url: str | None = None
    max_attempts: int | None = None
    """Context.max_attempts; None: the library's own (a benchmark measures what a user gets)."""
    timeout_s: float | None = 10.0
    """Context.timeout_s: the limit of one test run; None: the library's own."""
    seed: int | None = None
    """Policy.seed: the model's samples drawn seeded, the same in every condition where the
    prompt is the same (common random numbers); None: unseeded, as the library's default."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "model", lasting_name(self.model))

    def context(self, **settings: Any) -> Context:
        """The Context of a run: this config's model, caps and the local sandbox, with
        `settings` (by flat name, as `codeheal.resolve` takes them; None: the library's) on top;
        every other setting is the library's default (what a user gets)."""
        given = {"model": self.model, "base_url": self.base_url, "max_attempts": self.max_attempts,
                 "timeout_s": self.timeout_s, "seed": self.seed, "sandbox": "local", **settings}
        return resolve({name: value for name, value in given.items() if value is not None}).context


@dataclass(frozen=True)
class ProjectConfig(RunConfig):
    """A benchmark of `codeheal fix` runs, one per program or bug."""

    mutants: int | None = None
    """Context.mutants: 0 measures the model alone; None: the library's default."""
    only: tuple[str, ...] = ()
    """Only these programs or bugs, by name (all when empty)."""

    def fix_context(self) -> Context:
        """The Context every program or bug runs with."""
        return self.context(**({} if self.mutants is None else {"mutants": self.mutants}))
