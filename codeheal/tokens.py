"""How many tokens a text or a prompt takes: counted by a llama.cpp server's `/tokenize` where
the run's model is served by one, estimated otherwise.

The estimate is a token per BYTES_PER_TOKEN bytes of UTF-8, rounded up, and MESSAGE_TOKENS
per message for the chat template. Code and English average 3.3 to 4.5 bytes per token with
the Qwen and GPT tokenizers, so it errs towards more tokens: a prompt fitted by it fits. The
local model's tokenizer is not importable here, and tiktoken would need to download its tables.

`/tokenize` (llama.cpp's tools/server: POST {"content": text} -> {"tokens": [...]}) is asked only
of a server known to be llama.cpp (the embedded one), never of an OpenAI-compatible server in
general: other servers do not have it, and a guess would cost a request per count."""

from __future__ import annotations

import functools
import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from langchain_core.messages import BaseMessage

BYTES_PER_TOKEN = 3
MESSAGE_TOKENS = 8
"""Role markers and separators the chat template adds around one message."""
TOKENIZE_TIMEOUT_S = 5.0


def message_text(message: BaseMessage) -> str:
    """A message's text, whether its content is a string or a list of content blocks."""
    content = message.content
    if isinstance(content, str):
        return content
    return "".join(
        block.get("text", "") if isinstance(block, dict) else str(block) for block in content
    )


def estimate_tokens(text: str) -> int:
    """Tokens `text` is estimated to take."""
    return -(-len(text.encode("utf-8")) // BYTES_PER_TOKEN)


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens for one model: exactly with the llama.cpp server at `llama_cpp_url` (its
    OpenAI-compatible `.../v1` URL) when given, else by estimate. A count the server does not
    give (unreachable, an error, an answer of another shape) is the estimate."""

    llama_cpp_url: str | None = None
    api_key: str | None = None
    """The server's access token (a resident model server requires it)."""

    def tokens(self, text: str) -> int:
        """Tokens of `text`."""
        if self.llama_cpp_url is not None:
            counted = _tokenized(self.llama_cpp_url.rstrip("/").removesuffix("/v1"), text, self.api_key)
            if counted is not None:
                return counted
        return estimate_tokens(text)

    def prompt_tokens(self, messages: list[BaseMessage]) -> int:
        """Tokens of a prompt: each message's text and its chat template markers."""
        return sum(self.tokens(message_text(m)) + MESSAGE_TOKENS for m in messages)


ESTIMATE = TokenCounter()
"""The counter for a model whose server is not known to tokenize."""


@functools.lru_cache(maxsize=1024)
def _tokenized(root: str, text: str, api_key: str | None) -> int | None:
    headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {api_key}"} if api_key else {})
    request = urllib.request.Request(f"{root}/tokenize", data=json.dumps({"content": text}).encode(), headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=TOKENIZE_TIMEOUT_S) as response:
            body = json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None
    tokens = body.get("tokens") if isinstance(body, dict) else None
    return len(tokens) if isinstance(tokens, list) else None
