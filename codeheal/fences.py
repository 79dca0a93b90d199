"""Fenced code blocks in model text and task text: the one pattern for them."""

from __future__ import annotations

import re

FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
"""A fenced block: its tag (group 1) and its body (group 2); a block the text never closed
runs to the end."""
PYTHON_TAGS = {"", "python", "py", "python3", "py3"}


def python_blocks(text: str) -> list[re.Match[str]]:
    """The fenced blocks of `text` tagged as Python (or untagged), in order."""
    return [match for match in FENCE.finditer(text) if match.group(1).lower() in PYTHON_TAGS]
