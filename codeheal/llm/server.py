"""The embedded llama.cpp server: an OpenAI-compatible xllamacpp server for one model, bound
to 127.0.0.1 on a port the OS picks.

It runs in the resident server's process (codeheal.llm.resident, the default), or, where a user
asks for it (CODEHEAL_LOCAL_SERVER=in-process), inside the run's own process: one per process and
model, reused by every graph run that asks for the same model, stopped when the interpreter exits.
"""

from __future__ import annotations

import atexit
import os
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from codeheal import environment
from codeheal.errors import ConfigError, ModelError
from codeheal.llm.weights import LOCAL_MODELS, ensure_model

SLOTS_ENV, THREADS_ENV, SPECULATIVE_ENV = environment.LOCAL_SLOTS, environment.LOCAL_THREADS, environment.LOCAL_SPECULATIVE
DRAFT_ENV, DRAFT_MAX_ENV = environment.LOCAL_DRAFT, environment.LOCAL_DRAFT_MAX
SLOT_CONTEXT = 4096
"""Tokens of context each parallel slot gets: task, tests, reflections and an answer fit."""
READY_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Endpoint:
    """Where a started server answers, and the model name to send it."""

    base_url: str
    model_name: str
    api_key: str = "local"
    """The token the server requires (a resident server's own); any text for one without."""
    slots: int = 1
    """Its parallel request slots: the most completions one request may ask for."""


@dataclass(frozen=True)
class ServerStats:
    """How many servers this process has started, and how many are running now."""

    starts: int
    running: int


@dataclass(frozen=True)
class ServerSettings:
    """How a local server runs: CPU threads, parallel slots, batch sizes and llama.cpp's
    speculative decoding type (a `common_speculative_type` name, e.g. "NGRAM_SIMPLE")."""

    threads: int
    slots: int
    threads_why: str = "given"
    """Why `threads` (`codeheal model status` says it): CODEHEAL_LOCAL_THREADS, or the cores
    and the load it was chosen from."""
    batch: int = 2048
    ubatch: int = 512
    speculative: str = "NGRAM_MOD"
    """Drafting tokens from n-grams already in the prompt and reply. Measured on 2 cores
    (codeheal_bench/scripts/server_settings.py): generation 74 against 39 tokens/s on a retry prompt,
    two retry samples in 16.1 s against 31.0 s, first attempts unchanged (greedy output is
    identical). CODEHEAL_LOCAL_SPECULATIVE=NONE turns it off."""
    draft: str | None = None
    """An embedded model ("local-0.5b") that drafts tokens for the served one (llama.cpp's
    DRAFT_SIMPLE), alone or together with the n-gram drafting of `speculative`; None: no draft
    model. It must share the served model's vocabulary (the embedded models do)."""
    draft_max: int = 8
    """Tokens the draft model proposes per step before the served model checks them."""


@dataclass
class _Running:
    server: object
    endpoint: Endpoint


_lock = threading.Lock()
_servers: dict[Path, _Running] = {}
_starts = 0


def ensure_server(gguf_path: str | None = None) -> Endpoint:
    """The endpoint of the server for a GGUF file, starting it on first use.

    `None` serves the embedded model, an embedded model's name ("local", "local-0.5b", "local-1.5b") that
    model (assembled into the cache on first use), anything else is the path of a GGUF file. Parallel slots
    come from CODEHEAL_LOCAL_SLOTS (default 1), each with a 4096-token context; CPU threads
    from CODEHEAL_LOCAL_THREADS (default: chosen from the cores and the load, `choose_threads`).
    """
    global _starts
    path, name = model_file(gguf_path)
    with _lock:
        running = _servers.get(path)
        if running is None:
            running = start(path, name, local_settings())
            _servers[path] = running
            _starts += 1
        return running.endpoint


def model_file(gguf_path: str | None) -> tuple[Path, str]:
    """The GGUF file and served name of a model as ensure_server names it (an embedded model
    assembled into the cache on first use); ModelError when it is missing or unreadable."""
    if gguf_path is None or gguf_path in LOCAL_MODELS:
        spec = LOCAL_MODELS[gguf_path or "local"]
        path, name = ensure_model(spec=spec), spec.name
    else:
        path = Path(gguf_path).expanduser().resolve()
        name = path.stem
        if not path.is_file():
            raise ModelError(f"model file {gguf_path} does not exist; pass the path of a .gguf file")
    if not os.access(path, os.R_OK):
        raise ModelError(f"cannot read the model file {path}: permission denied for this user")
    return path, name


def local_settings() -> ServerSettings:
    """A local server's settings, from the environment (CODEHEAL_LOCAL_*)."""
    threads, why = thread_choice()
    return ServerSettings(
        threads=threads, slots=local_slots(), threads_why=why, speculative=local_speculative(),
        draft=local_draft(), draft_max=local_draft_max(),
    )


def serves(base_url: str) -> bool:
    """Whether `base_url` is the endpoint of an embedded server this process started."""
    with _lock:
        return any(running.endpoint.base_url == base_url for running in _servers.values())


def server_stats() -> ServerStats:
    """Counts of the servers this process has started (for tests and diagnostics)."""
    with _lock:
        return ServerStats(starts=_starts, running=len(_servers))


def _stop_servers() -> None:
    with _lock:
        # xllamacpp stops a server when its object is released.
        _servers.clear()


def local_slots() -> int:
    """Parallel request slots of a local server, from CODEHEAL_LOCAL_SLOTS (default 1)."""
    return _positive_int_env(SLOTS_ENV, 1, "parallel requests")


def local_speculative() -> str:
    """llama.cpp's speculative decoding type for a local server, from
    CODEHEAL_LOCAL_SPECULATIVE (default NGRAM_MOD; NONE: off)."""
    raw = environment.read(SPECULATIVE_ENV)
    if raw is None:
        return ServerSettings.speculative
    import xllamacpp

    known = sorted(
        name.removeprefix("COMMON_SPECULATIVE_TYPE_") for name in dir(xllamacpp.common_speculative_type)
        if name.startswith(("COMMON_SPECULATIVE_TYPE_NGRAM", "COMMON_SPECULATIVE_TYPE_NONE"))
    )  # the DRAFT_ types need a second (draft) model
    if raw.upper() not in known:
        raise ConfigError(
            f"{SPECULATIVE_ENV}={raw!r} is not one of llama.cpp's draft-free speculative types: {', '.join(known)} "
            f"(a draft model is {DRAFT_ENV})"
        )
    return raw.upper()


def local_draft() -> str | None:
    """The embedded model that drafts tokens for a local server, from CODEHEAL_LOCAL_DRAFT
    (e.g. "local-0.5b"; default none, as is NONE)."""
    raw = environment.read(DRAFT_ENV)
    if raw is None or raw.strip().upper() in ("", "NONE"):
        return ServerSettings.draft
    if raw not in LOCAL_MODELS:
        raise ConfigError(f"{DRAFT_ENV}={raw!r} is not an embedded model: one of {', '.join(LOCAL_MODELS)} or NONE")
    return raw


def local_draft_max() -> int:
    """Tokens the draft model proposes per step, from CODEHEAL_LOCAL_DRAFT_MAX (default 8)."""
    return _positive_int_env(DRAFT_MAX_ENV, ServerSettings.draft_max, "draft tokens per step")


def draft_model_path(draft: str) -> Path:
    """The GGUF of the embedded model `draft` names, assembled on first use like the served
    model's; a ConfigError names the command that installs it when it is not installed."""
    try:
        return ensure_model(spec=LOCAL_MODELS[draft])
    except ModelError as exc:
        raise ConfigError(f"the draft model {draft} ({DRAFT_ENV}) cannot be used: {exc}") from exc


def local_threads() -> int:
    """CPU threads of a local server: CODEHEAL_LOCAL_THREADS, else chosen (choose_threads)."""
    return thread_choice()[0]


def thread_choice() -> tuple[int, str]:
    """A local server's CPU threads and why: CODEHEAL_LOCAL_THREADS when set, else chosen
    from the cores this process may run on and the machine's load now (choose_threads)."""
    if environment.read(THREADS_ENV) is not None:
        threads = _positive_int_env(THREADS_ENV, 1, "CPU threads")
        return threads, f"{THREADS_ENV}={threads}"
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    threads = choose_threads(cores, load)
    return threads, f"chosen: {cores} cores, load {load:.1f} at start, one core left to the rest"


def choose_threads(cores: int, load: float) -> int:
    """Threads for llama.cpp on `cores` cores with `load` (the 1-minute load average) from
    other work: one core left free for the rest of the machine (a test suite, the run's own
    sandbox), and none of the cores the load keeps busy; at least 1. llama.cpp's threads wait for
    each other at every token, so one thread descheduled by other work stalls them all
    (measured: docs/models.md, codeheal_bench/scripts/thread_choice.py)."""
    return max(1, min(cores - 1, int(cores - load)))


def _positive_int_env(name: str, default: int, meaning: str) -> int:
    raw = environment.read(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(f"{name}={raw!r} must be an integer >= 1 ({meaning})")
    return value


def start(path: Path, name: str, settings: ServerSettings, api_key: str | None = None) -> _Running:
    """Start a server for the GGUF at `path` (also used by codeheal_bench/scripts/server_settings.py to
    compare settings); it stops when the returned object is released. With `api_key`, every
    request but /health must carry it as a bearer token, and /slots and /metrics answer."""
    import xllamacpp

    draft_path = draft_model_path(settings.draft) if settings.draft else None
    params = server_params(path, name, settings, draft_path)
    if api_key is not None:
        params.api_keys = [api_key]
        params.endpoint_slots = True
        params.endpoint_metrics = True
    try:
        server = xllamacpp.Server(params)
    except RuntimeError as exc:
        raise ModelError(
            f"llama.cpp could not load {path}{f' with the draft model {draft_path}' if draft_path else ''} ({exc}); "
            "check that it is a complete GGUF file "
            "(for the embedded model, `codeheal model --verify` reassembles it)"
        ) from exc
    base = server.listening_address.rstrip("/")
    _wait_ready(base + "/health", path)
    endpoint = Endpoint(base_url=base + "/v1", model_name=name, api_key=api_key or "local", slots=settings.slots)
    return _Running(server=server, endpoint=endpoint)


def server_params(path: Path, name: str, settings: ServerSettings, draft_path: Path | None = None) -> object:
    """xllamacpp's `CommonParams` for serving the GGUF at `path` with `settings`, drafting with
    the GGUF at `draft_path` (the model `settings.draft` names) when one is given."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.model_alias = {name}
    params.hostnames = ["127.0.0.1"]
    params.port = 0  # the server binds a free port and reports it
    params.n_parallel = settings.slots
    params.n_ctx = SLOT_CONTEXT * settings.slots
    params.n_batch = settings.batch
    params.n_ubatch = settings.ubatch
    kinds = []
    if draft_path is not None:
        draft = params.speculative.draft
        draft.mparams.path = str(draft_path)
        draft.n_max = settings.draft_max
        draft.cpuparams.n_threads = settings.threads
        draft.cpuparams_batch.n_threads = settings.threads
        kinds.append(xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE)
    if settings.speculative != "NONE":
        kinds.append(getattr(xllamacpp.common_speculative_type, f"COMMON_SPECULATIVE_TYPE_{settings.speculative}"))
    if kinds:
        params.speculative.types = kinds
    # Fewer threads than cores on a busy machine (choose_threads): llama.cpp's threads wait for
    # each other at every step, so one descheduled thread stalls them all.
    params.cpuparams.n_threads = settings.threads
    params.cpuparams_batch.n_threads = settings.threads
    params.use_jinja = True
    params.verbosity = 0
    # Both cost start-up time and change nothing here: fitting probes device memory to shrink
    # the context (ours is set above, on CPU), warm-up runs an empty batch before the first
    # request. Measured on 2 cores: the 1.5B model ready in 2.4 s instead of 3.8-4.5 s, its
    # first request no slower.
    params.fit_params = False
    params.warmup = False
    return params


READY_POLL_S = 0.02
"""How often a loading server's /health is asked: a local request costs well under a millisecond."""


def _wait_ready(url: str, path: Path) -> None:
    deadline = time.monotonic() + READY_TIMEOUT_S
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        if time.monotonic() > deadline:
            raise ModelError(
                f"the local model server for {path} did not become ready within "
                f"{READY_TIMEOUT_S:.0f} s at {url}"
            )
        time.sleep(READY_POLL_S)


atexit.register(_stop_servers)
