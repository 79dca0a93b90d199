"""A pass the tests did not see through: the candidate passed, yet a function the tests call
does nothing, or a line uses a name the code never defines.

The guarantee (module form): a candidate is never reported passed when a top-level function
the tests name (or the entry point) has a body of nothing but a docstring, `pass`, `...` or
`raise NotImplementedError`, or when pyflakes finds an undefined name in it (a NameError
wherever that line runs, in a branch the tests did not take). The pass becomes a failure whose
feedback says which, so the next attempt is told what to mend. Names a star import may bring,
and names only annotations use (they raise nothing when the code runs), are not counted.
"""

from __future__ import annotations

import ast

from pyflakes import messages

from codeheal.evaluation.checks import parse_tests
from codeheal.evaluation.pyflakes_notes import findings
from codeheal.state import CheckFailure, Feedback
from codeheal.syntax import parse_code

STATIC_CHECK = "<static check>"
"""The test name of a hollow pass's failures: no generated input's, so a choice among
candidates by generated inputs keeps them (nodes/selection.py)."""


def hollow_failures(candidate: str, tests: str, entry_point: str | None = None) -> list[CheckFailure]:
    """Why a candidate that passed its tests is no pass (see the module's guarantee); empty
    when nothing is hollow."""
    try:
        tree = parse_code(candidate, filename="solution.py")
    except SyntaxError:
        return []
    return _stubs(tree, _called_names(tests) | ({entry_point} if entry_point else set())) + _undefined(tree)


def hollow_feedback(passed: Feedback, failures: list[CheckFailure]) -> Feedback:
    """A passing run's feedback turned into a failure by `failures` (from hollow_failures)."""
    return {**passed, "passed": False, "failures": failures}


def _called_names(tests: str) -> set[str]:
    return {n.id for n in ast.walk(parse_tests(tests)) if isinstance(n, ast.Name)}


def _stubs(tree: ast.Module, called: set[str]) -> list[CheckFailure]:
    return [
        CheckFailure(
            test=STATIC_CHECK, exception="Stub", line=node.lineno, frames=[], expected=None, actual=None,
            message=f"`{node.name}` does nothing (its body is only {_stub_kind(node)}): the tests passed "
            "without exercising it. Write its body.",
        )
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in called and _stub_kind(node)
    ]


def _stub_kind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    """What a function's body is when it does nothing: "a docstring", "`pass`", "`...`",
    "`raise NotImplementedError`"; None when it does something."""
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        body = body[1:]
    if not body:
        return "a docstring"
    if len(body) != 1:
        return None
    only = body[0]
    if isinstance(only, ast.Pass):
        return "`pass`"
    if isinstance(only, ast.Expr) and isinstance(only.value, ast.Constant) and only.value.value is Ellipsis:
        return "`...`"
    if isinstance(only, ast.Raise) and only.exc is not None:
        raised = only.exc.func if isinstance(only.exc, ast.Call) else only.exc
        if isinstance(raised, ast.Name) and raised.id == "NotImplementedError":
            return "`raise NotImplementedError`"
    return None


def _undefined(tree: ast.Module) -> list[CheckFailure]:
    spans = _annotation_spans(tree)
    return [
        CheckFailure(
            test=STATIC_CHECK, exception="NameError", line=m.lineno, frames=[], expected=None, actual=None,
            message=f"name '{m.message_args[0]}' is not defined (solution.py line {m.lineno}), on a line the "
            "tests passed without reaching: define or import it.",
        )
        for m in findings(tree)
        if isinstance(m, messages.UndefinedName) and not any(start <= (m.lineno, m.col) < end for start, end in spans)
    ]


def _annotation_spans(tree: ast.Module) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the annotations are: a name only they use raises nothing when the code runs
    (postponed, written as a string, or on a local variable, an annotation is not evaluated;
    one that is fails the import, which the tests see)."""
    annotations = [
        node.annotation if isinstance(node, (ast.arg, ast.AnnAssign)) else node.returns
        for node in ast.walk(tree)
        if isinstance(node, (ast.arg, ast.AnnAssign, ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    return [((a.lineno, a.col_offset), (a.end_lineno or a.lineno, a.end_col_offset or 0))
            for a in annotations if a is not None]
