"""How many tokens of context the model has: asked of its server, else a setting.

What servers report (from their sources: llama.cpp tools/server get_props, vLLM ModelCard;
none of this is in the OpenAI API):
- llama.cpp's server (and the embedded xllamacpp one): `GET /props` ->
  `default_generation_settings.n_ctx`, the context of one slot, which is what one request
  gets. Its `/v1/models` `meta.n_ctx_train` is the model's training context, not the
  server's, and is not used: it can be far larger than what the server allows.
- vLLM: `GET /v1/models` -> `data[].max_model_len`.
- Ollama: `GET /api/ps` -> `models[].context_length`, the window of a loaded model; else
  `POST /api/show` -> `parameters` `num_ctx` (set in the Modelfile), else Ollama's default
  serving window, OLLAMA_DEFAULT_WINDOW; either capped by `model_info` `<arch>.context_length`
  (the model's own). Ollama cuts a longer prompt silently, so it is asked, never guessed.
OpenAI and servers that report none of these: the caller's setting.

Both forms fit their prompts to the window (fitted_window), each leaving out what it can spare
first; a prompt whose least does not fit goes as it is and the server judges it: a refusal is
a failed attempt saying so (model_call.refused_candidate), and the next prompt of the run is
fitted to half the window, never the run's end."""

from __future__ import annotations

import functools
import json
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from langchain_core.messages import BaseMessage

from codeheal.environment import openai_api_key, openai_base_url
from codeheal.prompting.model_call import refusals
from codeheal.tokens import TokenCounter

if TYPE_CHECKING:
    from codeheal.context import Context
    from codeheal.state import Attempt

ASK_TIMEOUT_S = 5.0
DEFAULT_WINDOW = 16384
"""Tokens assumed for a model whose server does not say (OpenAI's models have far more)."""
OLLAMA_DEFAULT_WINDOW = 4096
"""What Ollama serves a model whose Modelfile sets no num_ctx (OLLAMA_CONTEXT_LENGTH on the
server, which codeheal cannot see, changes it; on machines with 24 GiB of VRAM or more newer
Ollama serves more, which /api/ps then reports once the model is loaded)."""
MARGIN_TOKENS = 64
"""Left free in a fitted prompt's window: the chat template's start of the reply, the
separators between its parts, a counter's error."""


def context_size(base_url: str | None, *, default: int, model: str | None = None, api_key: str | None = None) -> int:
    """The context size the server at `base_url` (an OpenAI-compatible `.../v1` URL) reports
    for `model` (or its first model), else `default`. Never raises for an unreachable or
    silent server: the run fails later, where the model is called, with that error."""
    if not base_url:
        return default
    root = base_url.rstrip("/").removesuffix("/v1")
    props = _get_json(f"{root}/props", api_key)
    if props is not None:
        n_ctx = (props.get("default_generation_settings") or {}).get("n_ctx")
        if isinstance(n_ctx, int) and n_ctx > 0:
            return n_ctx
    if model is not None and (ollama := _ollama_window(root, model, api_key)) is not None:
        return ollama
    listing = _get_json(f"{root}/v1/models", api_key)
    entries = listing.get("data") if listing else None
    if isinstance(entries, list):
        chosen = [e for e in entries if isinstance(e, dict) and (model is None or e.get("id") == model)]
        size = chosen[0].get("max_model_len") if chosen else None
        if isinstance(size, int) and size > 0:
            return size
    return default


def _ollama_window(root: str, model: str, api_key: str | None) -> int | None:
    """The window Ollama serves `model` with; None when the server is not Ollama."""
    loaded = _get_json(f"{root}/api/ps", api_key)
    for entry in (loaded or {}).get("models") or []:
        if isinstance(entry, dict) and model in (entry.get("name"), entry.get("model")):
            size = entry.get("context_length")
            if isinstance(size, int) and size > 0:
                return size
    shown = _get_json(f"{root}/api/show", api_key, body={"model": model})
    if shown is None or "model_info" not in shown:
        return None
    window = OLLAMA_DEFAULT_WINDOW
    for line in str(shown.get("parameters") or "").splitlines():
        name, _, value = line.partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            window = int(value)
    trained = [v for k, v in (shown.get("model_info") or {}).items() if k.endswith(".context_length") and isinstance(v, int)]
    return min([window, *trained])


def _get_json(url: str, api_key: str | None, *, body: dict | None = None) -> dict | None:
    """GET `url` (POST `body` as JSON when given) and return the JSON object it answers."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        request = urllib.request.Request(url, data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=ASK_TIMEOUT_S) as response:
            body = json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None
    return body if isinstance(body, dict) else None


def window_tokens(context: Context) -> int:
    """The context window of the run's model: ProjectSettings.context_size when set, the embedded
    server's slot context for the local model, else what the server at base_url reports
    (asked once per endpoint), else DEFAULT_WINDOW."""
    if context.project.context_size:
        return context.project.context_size
    from codeheal.llm.factory import is_local

    if is_local(context):
        from codeheal.llm.server import SLOT_CONTEXT

        return SLOT_CONTEXT
    return _asked(context.base_url or openai_base_url(), context.model)


@functools.lru_cache(maxsize=16)
def _asked(base_url: str | None, model: str) -> int:
    return context_size(base_url, default=DEFAULT_WINDOW, model=model, api_key=openai_api_key())


def fitted_window(context: Context, history: Sequence[Attempt]) -> int:
    """The window the run's next prompt is fitted to: the model's (window_tokens), halved for
    each prompt of the run its server refused as over its context (model_call.refusals: the
    server counts tokens its own way, or serves less than it reports)."""
    return window_tokens(context) >> refusals(history)


def first_fitting(
    prompts: Iterable[list[BaseMessage]], window: int, reply_tokens: int, counter: TokenCounter
) -> list[BaseMessage]:
    """The first of `prompts` (the fullest first, each with less context) that leaves room in
    `window` for a reply of `reply_tokens` (and MARGIN_TOKENS), as `counter` counts; when none
    does, the last, the least, as it is: the server judges it."""
    prompt: list[BaseMessage] = []
    for prompt in prompts:
        if counter.prompt_tokens(prompt) + reply_tokens + MARGIN_TOKENS <= window:
            break
    return prompt
