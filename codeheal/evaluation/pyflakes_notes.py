"""A static look at a candidate before it runs: pyflakes' findings (undefined names, names
used before assignment, redefinitions, unused variables), as notes for the next attempt.
They never fail an attempt on their own, but for an undefined name in code that passed
(hollow.py)."""

from __future__ import annotations

import ast

from pyflakes import checker, messages

from codeheal.syntax import parse_code

IGNORED = (messages.UnusedImport, messages.ImportStarUsed, messages.ImportStarUsage)
MAX_NOTES = 5


def findings(tree: ast.Module) -> list[messages.Message]:
    """pyflakes' findings on a parsed candidate (solution.py), in line order."""
    return sorted(checker.Checker(tree, filename="solution.py").messages, key=lambda m: m.lineno)


def lint_notes(code: str) -> list[str]:
    """pyflakes' findings on `code` worth showing a model, at most MAX_NOTES; none for code
    that does not parse (the evaluator reports syntax errors itself)."""
    try:
        tree = parse_code(code, filename="solution.py")
    except Exception:  # a SyntaxError, or source that cannot be decoded (a null byte)
        return []
    notes = [f"line {m.lineno}: {m.message % m.message_args}" for m in findings(tree) if not isinstance(m, IGNORED)]
    return notes[:MAX_NOTES]
