"""Finding the code in a model's reply."""

from __future__ import annotations

import ast
import re

from codeheal.fences import python_blocks
from codeheal.syntax import parse_code

CODE_START = re.compile(r"^(def |class |import |from |@|async def )", re.MULTILINE)
DEFINITION = re.compile(r"^(?:async\s+def|def|class|import|from)\s", re.MULTILINE)


def extract_code(reply: str) -> str | None:
    """The Python code in a reply, or None when there is none.

    Fenced Python blocks win: every block that defines or imports something, in reply
    order (a later definition overrides an earlier one, as in Python); usage-only blocks
    are dropped unless nothing else is there. An unfenced reply counts when it starts
    with code or parses after dropping leading prose."""
    blocks = [match.group(2).strip("\n") for match in python_blocks(reply)]
    blocks = [b for b in blocks if b.strip()]
    if blocks:
        useful = [b for b in blocks if DEFINITION.search(b)]
        code = "\n\n".join(useful) if useful else max(blocks, key=len)
    else:
        code = _unfenced_code(reply)
    return without_self_tests(code) if code else code


def without_self_tests(code: str) -> str:
    """The code without the checks a model often appends to its own module: top-level
    asserts and calls of its own test_* functions. They run on import, so one wrong
    example of the model's would hide a correct solution from the real tests."""
    try:
        module = parse_code(code)
    except SyntaxError:
        return code  # reported as such by the evaluator
    drop = {
        line
        for node in module.body
        if _is_self_test(node)
        for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)
    }
    if not drop:
        return code
    kept = [line for number, line in enumerate(code.splitlines(), 1) if number not in drop]
    return "\n".join(kept).rstrip() + "\n"


def _is_self_test(node: ast.stmt) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        function = node.value.func
        return isinstance(function, ast.Name) and function.id.startswith(("test", "check"))
    return False


def _unfenced_code(reply: str) -> str | None:
    text = reply.strip()
    start = CODE_START.search(text)
    if start is None:
        return None
    candidate = text[start.start():].strip()
    if start.start() == 0:
        return candidate  # all code; a syntax error in it is feedback, not "no code"
    try:
        parse_code(candidate)
    except SyntaxError:
        return None
    return candidate
