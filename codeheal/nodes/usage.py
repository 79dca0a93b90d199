"""Measuring what a model call cost."""

from __future__ import annotations

import time

from langchain_core.messages import BaseMessage

from codeheal.state import Usage


def usage_of(reply: BaseMessage, started: float) -> Usage:
    """Tokens reported by the model (0 when it reports none) and seconds since `started`."""
    metadata = getattr(reply, "usage_metadata", None) or {}
    return Usage(tokens=int(metadata.get("total_tokens", 0)), seconds=time.perf_counter() - started)


def reply_text(reply: BaseMessage) -> str:
    """A reply's text, whether its content is a string or a list of content blocks."""
    content = reply.content
    if isinstance(content, str):
        return content
    return "".join(
        block.get("text", "") if isinstance(block, dict) else str(block) for block in content
    )
