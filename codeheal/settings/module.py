"""The module form's own settings (`codeheal solve`): Context.module."""

from __future__ import annotations

from dataclasses import dataclass

from codeheal.settings.values import setting

MODULE_SWITCHES = ("show_failed_code", "hedge")
"""Policy switches only the module form reads: its retry prompt can show the failed module, and
its first retry can mix a shown sample with fresh ones."""


@dataclass(kw_only=True)
class ModuleSettings:
    """Knobs of the module form only; a field left unset (None) is resolved as Context's are."""

    select_samples: int = setting(
        0,
        "When an attempt passes your tests and an attempt is left, draw up to this many more "
        "candidates from the first prompt (2 first, the rest only when they disagree), have the "
        "model write inputs of its own, run every candidate on them, and keep the one whose "
        "outputs the most candidates share (CodeT-style choice by execution). Generated inputs "
        "only choose among candidates that pass your tests; they never decide the verdict. 0: off.",
        unset=True,
    )
    task_examples: bool = setting(
        True,
        "Check the examples your task text writes beside your tests: doctests (`>>> f(2)` then "
        "its value) and examples in prose (`f(2) == 4`, `f(2) returns 4`, `Input:`/`Output:`), "
        "each a plain assert on the function the tests call (or import from `solution`), shown and run after your tests. An "
        "example whose call your tests "
        "already check is left out (your test decides). A wrong example fails every attempt: "
        "turn this off when the task's examples only illustrate.",
    )
