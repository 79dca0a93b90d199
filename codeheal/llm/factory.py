"""From Context to a LangChain chat model; every path goes through ChatOpenAI."""

from __future__ import annotations

import functools
import os

from langchain_core.language_models import BaseChatModel
from langchain_openai import ChatOpenAI

from codeheal.context import Context
from codeheal.errors import ConfigError

LOCAL_MODEL = "local"
MAX_TOKENS = 1024


def chat_model(context: Context, temperature: float, max_tokens: int = MAX_TOKENS) -> BaseChatModel:
    """The chat model a run uses at a given temperature (cached: one client per setting)."""
    return _cached_model(context.model, context.base_url, temperature, max_tokens)


@functools.lru_cache(maxsize=32)
def _cached_model(model: str, base_url: str | None, temperature: float, max_tokens: int) -> BaseChatModel:
    if model == LOCAL_MODEL or model.endswith(".gguf"):
        from codeheal.llm.server import ensure_server

        endpoint = ensure_server(None if model == LOCAL_MODEL else model)
        return ChatOpenAI(
            model=endpoint.model_name,
            base_url=endpoint.base_url,
            api_key="local",
            temperature=temperature,
            max_tokens=max_tokens,
            max_retries=2,
        )
    base_url = base_url or os.environ.get("OPENAI_BASE_URL")
    api_key = os.environ.get("OPENAI_API_KEY")
    if not api_key and not base_url:
        raise ConfigError(
            f"model {model!r} needs OPENAI_API_KEY (for OpenAI) or a base_url / OPENAI_BASE_URL "
            '(for vLLM, Ollama, llama.cpp); use model "local" to run offline'
        )
    return ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=api_key or "not-needed",
        temperature=temperature,
        max_tokens=max_tokens,
        max_retries=2,
    )
