"""Calling the chat model: timing, token counts, seeds, and transport faults turned into clear errors."""

from __future__ import annotations

import asyncio
import contextvars
import re
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field

import openai
from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager, Callbacks
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult
from langchain_core.runnables import ensure_config
from langchain_openai.chat_models.base import BaseChatOpenAI

from codeheal.errors import DeadlineReached, ModelError, ModelUnavailableError, PromptTooLargeError
from codeheal.progress import Writing, emit
from codeheal.state import Attempt, Breakdown, Usage
from codeheal.tokens import message_text

CONTEXT_EXCEEDED = re.compile(r"context (size|length|window)|context_length_exceeded|too many tokens", re.IGNORECASE)
"""How servers word a prompt over the context: llama.cpp ("exceeds the available context
size"), vLLM ("maximum context length"), OpenAI ("context_length_exceeded")."""


Reply = tuple[str, Usage]
"""A reply's text (a prefilled reply starts with its prefill) and what it cost."""


@dataclass(frozen=True)
class ModelCall:
    """Ask `model` for `samples` replies to `messages`, asking for up to `per_call` of them in
    each request (one prompt prefill shared by several completions). A final assistant
    message in `messages` is a prefill the model continues; generation stops at any of
    `stop`, and after `max_tokens` completion tokens per reply when given. With a `seed`, each
    reply is its own request, the i-th (from 0) seeded `seed + i`. Its replies are a list of
    `Reply`. With `timeout_s`, the call is cut when it has run that long, all its requests
    together (DeadlineReached). With an `attempt`, a reply the model streams is announced as
    it is written (`writing` progress events, about once a second)."""

    model: BaseChatModel
    messages: list[BaseMessage]
    stop: tuple[str, ...] = ()
    samples: int = 1
    per_call: int = 1
    max_tokens: int | None = None
    seed: int | None = None
    timeout_s: float | None = None
    attempt: int | None = None


SEED_STRIDE = 1000
"""A seeded run's replies of attempt k start at seed + SEED_STRIDE * (k - 1) (sample_seed)."""


def sample_seed(seed: int | None, attempt: int, drawn: int) -> int | None:
    """The seed of the next reply of attempt `attempt` (from 1), after `drawn` replies of that
    attempt, in a run seeded `seed` (Policy.seed); None in an unseeded run. Keyed by place,
    not by prompt: two policies' fresh samples in the same place are the same sample."""
    return None if seed is None else seed + SEED_STRIDE * (attempt - 1) + drawn


def invoke_model(call: ModelCall) -> list[Reply]:
    """The replies `call` asks for, requested blocking; cut at its `timeout_s` (the requests
    go on in a worker thread, which is left to its client's own timeout)."""
    if call.timeout_s is None:
        return _requested(call)
    worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="codeheal-model-call")
    future = worker.submit(contextvars.copy_context().run, _requested, call)  # the run's callbacks and config
    worker.shutdown(wait=False)
    try:
        return future.result(timeout=call.timeout_s)
    except TimeoutError:
        if future.done():  # raised by the call itself
            raise
        raise _cut(call) from None


async def ainvoke_model(call: ModelCall) -> list[Reply]:
    """The replies `call` asks for, awaited (ChatOpenAI's async client belongs to the running
    event loop, so the sync face cannot be this one run in a loop of its own); cancelled at its
    `timeout_s`."""
    try:
        return await asyncio.wait_for(_arequested(call), call.timeout_s)
    except TimeoutError:
        raise _cut(call) from None


def _requested(call: ModelCall) -> list[Reply]:
    collected = _Collected(call)
    while (options := collected.next_request()) is not None:
        with _translated_errors(call.model):
            collected.add(call.model.generate([call.messages], **options))
    return collected.replies


async def _arequested(call: ModelCall) -> list[Reply]:
    collected = _Collected(call)
    while (options := collected.next_request()) is not None:
        with _translated_errors(call.model):
            collected.add(await call.model.agenerate([call.messages], **options))
    return collected.replies


def _cut(call: ModelCall) -> DeadlineReached:
    return DeadlineReached(f"the model call {_describe(call.model)} was cut at the run's deadline, "
                           f"after {call.timeout_s:.1f} s")


@dataclass
class _Collected:
    """The replies of one ModelCall, request by request; the caller makes each request. A
    server that ignores `n` answers fewer completions than asked: more requests follow."""

    call: ModelCall
    replies: list[Reply] = field(default_factory=list)
    started: float = 0.0
    ends: float | None = None
    writing: _WritingProgress | None = None

    def __post_init__(self) -> None:
        if self.call.timeout_s is not None:
            self.ends = time.perf_counter() + self.call.timeout_s
        if self.call.attempt is not None:
            self.writing = _WritingProgress(self.call.attempt)

    def next_request(self) -> dict | None:
        """The next request's options, or None when the call has its replies. An OpenAI
        client is given the call's time left as the request's own timeout, so that a request
        cut at the deadline is also closed (the server stops writing it)."""
        wanted = self.call.samples - len(self.replies)
        if wanted <= 0:
            return None
        self.started = time.perf_counter()
        options = _call_options(self.call.stop, 1 if self.call.seed is not None else min(self.call.per_call, wanted),
                                self.call.max_tokens, self.writing)
        if self.call.seed is not None:
            # One completion per request: a request carries one seed, and each reply needs
            # its own (the embedded server answers one completion per request anyway).
            options["seed"] = self.call.seed + len(self.replies)
        if self.ends is not None and isinstance(self.call.model, BaseChatOpenAI):
            options["timeout"] = max(self.ends - self.started, 0.001)
        return options

    def add(self, result: LLMResult) -> None:
        """A request's result: its completions, up to the replies the call asks for."""
        self.replies += _replies(result, self.call.messages, self.started)
        del self.replies[self.call.samples:]


WRITING_EVERY_S = 1.0
"""The least time between two `writing` events of a call."""


class _WritingProgress(BaseCallbackHandler):
    """A call's streamed tokens counted as they come, announced (`writing`) about once a second."""

    run_inline = True  # counted in order, where the run's stream writer is in scope

    def __init__(self, attempt: int) -> None:
        self.attempt = attempt
        self.started = self.said = time.perf_counter()
        self.written = 0

    def on_llm_new_token(self, token: str, **kwargs: object) -> None:
        if not token:  # the usage chunk at a stream's end
            return
        self.written += 1
        now = time.perf_counter()
        if now - self.said >= WRITING_EVERY_S:
            self.said = now
            emit(Writing(kind="writing", attempt=self.attempt, completion_tokens=self.written,
                         seconds=round(now - self.started, 1)))


def _call_options(stop: Sequence[str], n: int, max_tokens: int | None, writing: _WritingProgress | None) -> dict:
    # What `invoke` passes on: the graph run's callbacks, tags and metadata.
    config = ensure_config()
    options = {
        "stop": list(stop) or None,
        "callbacks": _with_handler(config.get("callbacks"), writing),
        "tags": config.get("tags"),
        "metadata": config.get("metadata"),
    }
    if n > 1:
        options["n"] = n
    if max_tokens is not None:
        options["max_tokens"] = max_tokens
    return options


def _with_handler(callbacks: Callbacks, handler: BaseCallbackHandler | None) -> Callbacks:
    """The run's callbacks (a list or a manager) with `handler` added for this call alone."""
    if handler is None:
        return callbacks
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=False)
        return manager
    return [*(callbacks or []), handler]


def _replies(result: LLMResult, messages: list[BaseMessage], started: float) -> list[Reply]:
    """Every completion of one request. The request's cost (one prompt, all completions)
    is the first reply's; a prefill is put back in front of a continuation that lacks it."""
    last = messages[-1]
    prefill = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
    replies = []
    for index, generation in enumerate(result.generations[0]):
        message = generation.message  # type: ignore[attr-defined]
        text = message_text(message)
        if prefill and not text.startswith(prefill):
            text = prefill + text
        usage = usage_of(message, started) if index == 0 else NO_USAGE
        replies.append((text, usage))
    return replies


def usage_of(reply: BaseMessage, started: float) -> Usage:
    """Tokens reported by the model (0 when it reports none), seconds since `started`, and
    the server's own `timings` when it sends them (llama.cpp does; zeros otherwise)."""
    metadata = getattr(reply, "usage_metadata", None) or {}
    prompt, completion = int(metadata.get("input_tokens", 0)), int(metadata.get("output_tokens", 0))
    timings = (getattr(reply, "response_metadata", None) or {}).get("timings") or {}
    return Usage(
        tokens=int(metadata.get("total_tokens", prompt + completion)),
        prompt_tokens=prompt,
        completion_tokens=completion,
        seconds=time.perf_counter() - started,
        prompt_evaluated=int(timings.get("prompt_n") or 0),
        prompt_reused=int(timings.get("cache_n") or 0),
        prompt_seconds=float(timings.get("prompt_ms") or 0.0) / 1000,
        generation_seconds=float(timings.get("predicted_ms") or 0.0) / 1000,
    )


SUMMED = ("tokens", "prompt_tokens", "completion_tokens", "seconds",
          "prompt_evaluated", "prompt_reused", "prompt_seconds", "generation_seconds")
"""Usage's fields; a Usage checkpointed by an older codeheal may lack the later ones."""


def total_usage(usages: list[Usage]) -> Usage:
    """Several calls' cost as one."""
    return Usage(**{name: sum(u.get(name, 0) for u in usages) for name in SUMMED})  # type: ignore[typeddict-item]


NO_USAGE = total_usage([])


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
                "context or shorten the task or the tests; in `codeheal fix`, set context_size "
                "(--context-size) to what the server allows so codeheal fits its prompts to it "
                f"(the server said: {exc.message})"
            ) from exc
        raise


REFUSED = "[codeheal] no reply: "
"""How the candidate of a refused prompt starts (refused_candidate); no model reply does."""


def refused_candidate(error: PromptTooLargeError) -> str:
    """The candidate that stands for a model call whose prompt was over the model's context
    (`error`): no code, the reason. Its attempt fails saying so and the run goes on; a form
    that fits its prompts to the window fits the next ones to a smaller one (refusals)."""
    return REFUSED + " ".join(str(error).split())


def is_refused(candidate: str | None) -> bool:
    """Whether `candidate` stands for a refused prompt (refused_candidate)."""
    return candidate is not None and candidate.startswith(REFUSED)


def refusals(history: Sequence[Attempt]) -> int:
    """How many attempts of `history` ended with their prompt refused as over the context."""
    return sum(is_refused(attempt["code"]) for attempt in history)


def _describe(model: BaseChatModel) -> str:
    name = getattr(model, "model_name", None) or type(model).__name__
    base_url = getattr(model, "openai_api_base", None)
    return f"{base_url} (model {name})" if base_url else f"(model {name})"


def charged(attempt: Attempt, usage: Usage) -> Attempt:
    """`attempt` with the cost of a later model call added."""
    added = {name: attempt.get(name, 0) + usage.get(name, 0) for name in SUMMED}  # type: ignore[misc]
    return {**attempt, **added, "seconds": round(added["seconds"], 3)}  # type: ignore[typeddict-item]


def usage_fields(usage: Usage) -> dict:
    """The Attempt fields that record `usage` (its seconds are the attempt's to add up)."""
    return {name: usage.get(name, 0) for name in SUMMED if name != "seconds"}


def breakdown(history: list[Attempt], wall_seconds: float) -> Breakdown:
    """Where a run of `wall_seconds` went, from its attempts: the model's prompt reading and
    writing, the sandbox, and the rest (codeheal's own overhead)."""
    total = {name: sum(a.get(name, 0) for a in history) for name in BREAKDOWN_SUMMED}
    spent = total["prompt_seconds"] + total["generation_seconds"] + total["sandbox_seconds"]
    return Breakdown(
        prompt_evaluated=int(total["prompt_evaluated"]), prompt_reused=int(total["prompt_reused"]),
        prompt_seconds=round(total["prompt_seconds"], 3), generation_seconds=round(total["generation_seconds"], 3),
        sandbox_seconds=round(total["sandbox_seconds"], 3), overhead_seconds=round(max(wall_seconds - spent, 0.0), 3),
    )


BREAKDOWN_SUMMED = ("prompt_evaluated", "prompt_reused", "prompt_seconds", "generation_seconds", "sandbox_seconds")

