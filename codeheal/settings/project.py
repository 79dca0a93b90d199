"""The project form's own settings (`codeheal fix`): Context.project, and the policy switches
the form sets itself (ProjectForm.policy_for)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from codeheal.settings.values import setting

Regression = Literal["runs", "importers", "suite", "none"]
"""Which tests beyond the test command check a change before it is a heal (forms/project/regression.py)."""

SET_BY_FORM = ("feedback", "feedback_when", "fresh_attempts", "fresh_start", "stop_on_repeat")
"""Policy switches the project form sets itself, so a user may not: a project has one starting
point, so every retry sees the failure (always), none is a fresh sample, and a retry that
finds nothing new ends the run."""


@dataclass(kw_only=True)
class ProjectSettings:
    """Knobs of the project form only; a field left unset (None) is resolved as Context's are."""

    mutants: int = setting(
        80,
        "Before the first model call, screen up to this many "
        "one-line mutations of the most suspicious lines (a comparison, an operator, a constant "
        "or an index one off, a negated condition, swapped arguments, a twin method, a dropped "
        "call, another local variable), "
        "each tested like a repair; one that passes heals the run without a model call. This "
        "attempt does not count against max_attempts. 0: off.",
        unset=True,
    )
    lint: bool = setting(
        True,
        "Check each change with ruff before the tests run; a problem the change adds (an "
        "undefined name, an unused import) fails the attempt.",
        unset=True,
    )
    regression: Regression = setting(
        "runs",
        "Before a change that passes the test command is called a heal, also run the tests "
        "beyond it that exercise the changed code, on the changed copy; a change that breaks a "
        "test that passed on the project as it is is no heal. runs: the tests whose run of the "
        "project as it is executed the changed code (the whole suite run once with each test's "
        "line coverage); importers: the test files that "
        "import the changed modules (directly or through the project's other modules); suite: "
        "the project's whole suite (the command without its test paths); none: off. Only where "
        "pytest is visible in the test command.",
        unset=True,
    )
    context_size: int = setting(
        0,
        "The model's context window in tokens, which the prompts are fitted to. 0: ask the "
        "server at base_url (llama.cpp, vLLM, Ollama), else 4096 for the embedded model and 16384 "
        "for others.",
        unset=True,
    )
