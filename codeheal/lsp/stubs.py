"""Stubs the editor may ask codeheal to write: a function with a docstring and no body yet
(`...`, `pass` or `raise NotImplementedError`)."""

from __future__ import annotations

import ast


def stub_at(source: str, line: int) -> str | None:
    """The dotted name (`Class.method`) of the innermost stub whose `def` spans 0-based `line`
    of `source`; None when there is none there or the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: str | None = None

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal found
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                inside = child.lineno - 1 <= line <= (child.end_lineno or child.lineno) - 1
                if inside and not isinstance(child, ast.ClassDef) and _is_stub(child):
                    found = name
                if inside:
                    visit(child, name + ".")

    visit(tree, "")
    return found


def _is_stub(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    body = function.body
    if not (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)):
        return False
    return all(_placeholder(statement) for statement in body[1:])


def _placeholder(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and statement.value.value is Ellipsis:
        return True
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return False
