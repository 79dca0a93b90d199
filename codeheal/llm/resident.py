"""The resident model server's process: `python -m codeheal.llm.resident GGUF NAME`, started
detached by codeheal.llm.discovery on a run's first use of an embedded model.

It serves the model with llama.cpp on 127.0.0.1, behind an access token of its own making that
only its state file (0600, in the user's private runtime directory) holds, and exits when told
(SIGTERM: `codeheal model stop`), when its model file changes, or once no process has used it
for CODEHEAL_LOCAL_IDLE seconds (default IDLE_S) and it has nothing to write."""

from __future__ import annotations

import fcntl
import os
import secrets
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from codeheal import environment
from codeheal.errors import CodehealError, ConfigError
from codeheal.llm.discovery import (
    Resident,
    private_file,
    read_state,
    runtime_dir,
    server_key,
    weights_signature,
    write_state,
)
from codeheal.llm.server import local_settings, start

IDLE_S = 300.0
"""Seconds unused before a resident server exits: a few minutes keep it warm between the runs
of one sitting, and give its memory back soon after."""
WATCH_S = 1.0
"""How often it looks at its model file, its clients and its work."""


def idle_seconds() -> float:
    """The idle time before a resident server exits, from CODEHEAL_LOCAL_IDLE (default IDLE_S)."""
    raw = environment.read(environment.LOCAL_IDLE)
    if raw is None:
        return IDLE_S
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if value <= 0:
        raise ConfigError(f"{environment.LOCAL_IDLE}={raw!r} must be a number of seconds > 0 (idle time of the model server)")
    return value


def serve(path: Path, name: str) -> str:
    """Serve the model at `path` until a reason to stop comes; return that reason."""
    began = time.monotonic()
    settings, idle_s = local_settings(), idle_seconds()
    token = secrets.token_urlsafe(32)
    weights = weights_signature(path)
    running = start(path, name, settings, api_key=token)
    stopping = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda *_: stopping.set())
    directory, key = runtime_dir(), server_key(path)
    state = directory / f"{key}.json"
    me = Resident(pid=os.getpid(), model=name, path=str(path), base_url=running.endpoint.base_url, token=token,
                  started=time.time(), start_seconds=round(time.monotonic() - began, 2), slots=settings.slots,
                  idle_s=idle_s, weights=weights, threads=settings.threads, threads_why=settings.threads_why)
    write_state(state, me)
    activity, last_active = None, time.monotonic()
    try:
        while not stopping.wait(WATCH_S):
            if weights_signature(path) != weights:
                return "its model file changed"
            now_activity = _activity(me)
            if now_activity != activity or _in_use(directory, key):
                activity, last_active = now_activity, time.monotonic()
            elif time.monotonic() - last_active > idle_s and _leave_if_unused(directory, key, state):
                return f"unused for {idle_s:g} s"
        return "told to stop"
    finally:
        if (read_state(state) or me).pid == me.pid:
            state.unlink(missing_ok=True)


def _activity(me: Resident) -> tuple[float, ...] | None:
    """llama.cpp's counters of work done and in hand (/metrics): a change is use."""
    request = urllib.request.Request(me.base_url.removesuffix("/v1") + "/metrics",
                                     headers={"Authorization": f"Bearer {me.token}"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            text = response.read().decode()
    except (urllib.error.URLError, OSError):
        return None
    wanted = ("llamacpp:n_decode_total", "llamacpp:requests_processing", "llamacpp:requests_deferred",
              "llamacpp:prompt_tokens_total")
    return tuple(float(line.split()[-1]) for line in text.splitlines() if line.startswith(wanted))


def _in_use(directory: Path, key: str) -> bool:
    """Whether a living process holds the server (a shared lock on its clients file)."""
    try:
        with private_file(directory / f"{key}.clients") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            return False
    except OSError:
        return False


def _leave_if_unused(directory: Path, key: str, state: Path) -> bool:
    """Remove the state file, so no run finds this server any more, if no run is starting
    one or holding it now; whether it was removed."""
    with private_file(directory / f"{key}.lock") as lock:
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        if _in_use(directory, key):
            return False
        state.unlink(missing_ok=True)
        return True


def main(argv: list[str]) -> int:
    """Entry point: serve GGUF as NAME; say on stderr (its log) why it stopped."""
    path, name = Path(argv[0]), argv[1]
    try:
        reason = serve(path, name)
    except CodehealError as exc:
        print(f"codeheal model server: {exc}", file=sys.stderr, flush=True)
        return 3
    print(f"codeheal model server for {name}: stopped, {reason}", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
