"""Finding the code in a model's reply."""

from __future__ import annotations

import ast
import re

FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
PYTHON_TAGS = {"", "python", "py", "python3", "py3"}
CODE_START = re.compile(r"^(def |class |import |from |@|async def )", re.MULTILINE)
DEFINITION = re.compile(r"^(?:async\s+def|def|class|import|from)\s", re.MULTILINE)


def extract_code(reply: str) -> str | None:
    """The Python code in a reply, or None when there is none.

    Fenced Python blocks win: every block that defines or imports something, in reply
    order (a later definition overrides an earlier one, as in Python); usage-only blocks
    are dropped unless nothing else is there. An unfenced reply counts when it starts
    with code or parses after dropping leading prose."""
    blocks = [body.strip("\n") for tag, body in FENCE.findall(reply) if tag.lower() in PYTHON_TAGS]
    blocks = [b for b in blocks if b.strip()]
    if blocks:
        useful = [b for b in blocks if DEFINITION.search(b)]
        return "\n\n".join(useful) if useful else max(blocks, key=len)
    return _unfenced_code(reply)


def _unfenced_code(reply: str) -> str | None:
    text = reply.strip()
    start = CODE_START.search(text)
    if start is None:
        return None
    candidate = text[start.start():].strip()
    if start.start() == 0:
        return candidate  # all code; a syntax error in it is feedback, not "no code"
    try:
        ast.parse(candidate)
    except SyntaxError:
        return None
    return candidate
