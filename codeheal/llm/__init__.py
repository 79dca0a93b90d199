"""Chat models: the embedded local model, OpenAI, or any OpenAI-compatible server."""

from codeheal.llm.factory import chat_model

__all__ = ["chat_model"]
