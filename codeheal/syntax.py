"""Python source parsed behind one lock. CPython 3.11 (3.11.7 here) can fail a parse made
while another thread parses, rarely ("SystemError: AST constructor recursion depth mismatch";
python/cpython#106905 and reports like it from threaded apps), and graph nodes parse in
LangGraph's worker threads, several runs at once in a benchmark or an embedding app."""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.Lock()


def parse_code(source: str, filename: str = "<unknown>", mode: str = "exec") -> Any:
    """ast.parse(source, filename, mode), one thread at a time (an ast.Module, or an
    ast.Expression for mode="eval"); SyntaxError as ast.parse raises it."""
    with _LOCK:
        return ast.parse(source, filename=filename, mode=mode)
