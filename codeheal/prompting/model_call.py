"""Calling the chat model: timing, token counts, and transport faults turned into clear errors."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult
from langchain_core.runnables import ensure_config

from codeheal.errors import ModelError, ModelUnavailableError, PromptTooLargeError
from codeheal.state import Attempt, Usage

CONTEXT_EXCEEDED = re.compile(r"context (size|length|window)|context_length_exceeded|too many tokens", re.IGNORECASE)
"""How servers word a prompt over the context: llama.cpp ("exceeds the available context
size"), vLLM ("maximum context length"), OpenAI ("context_length_exceeded")."""


Reply = tuple[str, Usage]
"""A reply's text (a prefilled reply starts with its prefill) and what it cost."""


def estimate_prompt_tokens(messages: list[BaseMessage]) -> int:
    """A generous estimate of a prompt's tokens, for budgeting before the call: a token per
    3 bytes of text (code and English average 3.5 to 4.5 with the Qwen and GPT tokenizers)
    and 8 per message for the chat template."""
    return sum(len(reply_text(m).encode("utf-8")) // 3 + 8 for m in messages)


def invoke_model(
    model: BaseChatModel, messages: list[BaseMessage], *, stop: Sequence[str] = (), samples: int = 1,
    per_call: int = 1, max_tokens: int | None = None,
) -> list[Reply]:
    """`samples` replies to one prompt, asking for up to `per_call` of them in each request
    (one prompt prefill shared by several completions). A final assistant message in
    `messages` is a prefill the model continues; generation stops at any of `stop`, and
    after `max_tokens` completion tokens per reply when given."""
    replies: list[Reply] = []
    while len(replies) < samples:
        started = time.perf_counter()
        n = min(per_call, samples - len(replies))
        with _translated_errors(model):
            result = model.generate([messages], **_call_options(stop, n, max_tokens))
        replies += _replies(result, messages, started)
    return replies[:samples]


async def ainvoke_model(
    model: BaseChatModel, messages: list[BaseMessage], *, stop: Sequence[str] = (), samples: int = 1,
    per_call: int = 1, max_tokens: int | None = None,
) -> list[Reply]:
    """invoke_model without blocking the event loop."""
    replies: list[Reply] = []
    while len(replies) < samples:
        started = time.perf_counter()
        n = min(per_call, samples - len(replies))
        with _translated_errors(model):
            result = await model.agenerate([messages], **_call_options(stop, n, max_tokens))
        replies += _replies(result, messages, started)
    return replies[:samples]


def _call_options(stop: Sequence[str], n: int, max_tokens: int | None) -> dict:
    # What `invoke` passes on: the graph run's callbacks, tags and metadata.
    config = ensure_config()
    options = {
        "stop": list(stop) or None,
        "callbacks": config.get("callbacks"),
        "tags": config.get("tags"),
        "metadata": config.get("metadata"),
    }
    if n > 1:
        options["n"] = n
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    return options


def _replies(result: LLMResult, messages: list[BaseMessage], started: float) -> list[Reply]:
    """Every completion of one request. The request's cost (one prompt, all completions)
    is the first reply's; a prefill is put back in front of a continuation that lacks it."""
    last = messages[-1]
    prefill = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
    replies = []
    for index, generation in enumerate(result.generations[0]):
        message = generation.message  # type: ignore[attr-defined]
        text = reply_text(message)
        if prefill and not text.startswith(prefill):
            text = prefill + text
        usage = usage_of(message, started) if index == 0 else NO_USAGE
        replies.append((text, usage))
    return replies


def usage_of(reply: BaseMessage, started: float) -> Usage:
    """Tokens reported by the model (0 when it reports none) and seconds since `started`."""
    metadata = getattr(reply, "usage_metadata", None) or {}
    prompt, completion = int(metadata.get("input_tokens", 0)), int(metadata.get("output_tokens", 0))
    return Usage(
        tokens=int(metadata.get("total_tokens", prompt + completion)),
        prompt_tokens=prompt,
        completion_tokens=completion,
        seconds=time.perf_counter() - started,
    )


def total_usage(usages: list[Usage]) -> Usage:
    """Several calls' cost as one."""
    return Usage(
        tokens=sum(u["tokens"] for u in usages),
        prompt_tokens=sum(u["prompt_tokens"] for u in usages),
        completion_tokens=sum(u["completion_tokens"] for u in usages),
        seconds=sum(u["seconds"] for u in usages),
    )


NO_USAGE = Usage(tokens=0, prompt_tokens=0, completion_tokens=0, seconds=0.0)


def reply_text(reply: BaseMessage) -> str:
    """A reply's text, whether its content is a string or a list of content blocks."""
    content = reply.content
    if isinstance(content, str):
        return content
    return "".join(
        block.get("text", "") if isinstance(block, dict) else str(block) for block in content
    )


@contextmanager
def _translated_errors(model: BaseChatModel) -> Iterator[None]:
    where = _describe(model)
    try:
        yield
    except (openai.APIConnectionError, openai.APITimeoutError) as exc:
        raise ModelUnavailableError(f"the model endpoint {where} is unreachable: {exc}") from exc
    except openai.RateLimitError as exc:
        raise ModelUnavailableError(f"the model endpoint {where} is rate limiting (429): {exc.message}") from exc
    except openai.InternalServerError as exc:
        raise ModelUnavailableError(f"the model endpoint {where} failed ({exc.status_code}): {exc.message}") from exc
    except openai.AuthenticationError as exc:
        raise ModelError(f"the model endpoint {where} rejected the API key (401): check OPENAI_API_KEY") from exc
    except openai.NotFoundError as exc:
        raise ModelError(f"the model endpoint {where} does not know this model (404): {exc.message}") from exc
    except openai.BadRequestError as exc:
        if CONTEXT_EXCEEDED.search(str(exc.message)):
            raise PromptTooLargeError(
                f"the prompt is larger than the model's context at {where}: use a model with a larger "
                "context, shorten the task or the tests, or set context_size (--context-size) to what "
                f"the server allows so codeheal fits its prompts to it (the server said: {exc.message})"
            ) from exc
        raise


def _describe(model: BaseChatModel) -> str:
    name = getattr(model, "model_name", None) or type(model).__name__
    base_url = getattr(model, "openai_api_base", None)
    return f"{base_url} (model {name})" if base_url else f"(model {name})"


def charged(attempt: Attempt, usage: Usage) -> Attempt:
    """`attempt` with the cost of a later model call added."""
    return {
        **attempt,
        "tokens": attempt["tokens"] + usage["tokens"],
        "prompt_tokens": attempt.get("prompt_tokens", 0) + usage["prompt_tokens"],
        "completion_tokens": attempt.get("completion_tokens", 0) + usage["completion_tokens"],
        "seconds": round(attempt["seconds"] + usage["seconds"], 3),
    }
