"""A static look at a candidate before it runs: pyflakes' findings (undefined names, names
used before assignment, redefinitions, unused variables), as notes for the next attempt.
They never fail an attempt on their own, but for an undefined name in code that passed
(hollow.py)."""

from __future__ import annotations

from pyflakes import api, messages
from pyflakes.reporter import Reporter

IGNORED = (messages.UnusedImport, messages.ImportStarUsed, messages.ImportStarUsage)
MAX_NOTES = 5


class _Collector(Reporter):
    def __init__(self) -> None:
        self.found: list[str] = []

    def flake(self, message: messages.Message) -> None:
        if not isinstance(message, IGNORED):
            self.found.append(f"line {message.lineno}: {message.message % message.message_args}")

    def syntaxError(self, *args: object) -> None:  # the evaluator reports syntax errors itself
        pass

    def unexpectedError(self, *args: object) -> None:
        pass


def lint_notes(code: str) -> list[str]:
    """pyflakes' findings on `code` worth showing a model, at most MAX_NOTES."""
    collector = _Collector()
    api.check(code, "solution.py", collector)
    return collector.found[:MAX_NOTES]
