"""The module form's own settings (`codeheal solve`): Context.module."""

from __future__ import annotations

from dataclasses import dataclass

from codeheal.settings.values import setting

MODULE_SWITCHES = ("show_failed_code",)
"""Policy switches only the module form reads: its retry prompt can show the failed module."""


@dataclass(kw_only=True)
class ModuleSettings:
    """Knobs of the module form only; a field left unset (None) is resolved as Context's are."""

    select_samples: int = setting(
        0,
        "When an attempt passes tests of fewer than 2 checks (too weak to trust), draw this "
        "many more candidates from the first prompt, have the model write checks of its own, "
        "and keep the candidate that most others agree with on them (CodeT-style). Generated "
        "checks only choose among candidates that pass your tests; they never decide the "
        "verdict. 0: off.",
        unset=True,
    )
