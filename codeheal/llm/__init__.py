"""Chat models: the embedded local model, OpenAI, or any OpenAI-compatible server.

`chat_model` is imported on first use (it brings LangChain's and OpenAI's clients, seconds to
import): `codeheal model status` and the resident server's own process use the package's other
modules without them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codeheal.llm.factory import chat_model

__all__ = ["chat_model"]


def __getattr__(name: str) -> object:
    if name == "chat_model":
        from codeheal.llm.factory import chat_model  # start-up cost, not a cycle

        return chat_model
    raise AttributeError(f"module 'codeheal.llm' has no attribute {name!r}")
