"""The resident model server as a run sees it: found through a file in the user's runtime
directory, started on first use as a detached process (codeheal.llm.resident), checked before
use, listed and stopped by `codeheal model status` / `stop`.

One server per user and model file. Its state file (`<key>.json`, mode 0600, in a 0700
directory) holds its pid, address and access token; `<key>.lock` lets one process at a time
start it; every process that uses it holds a shared lock on `<key>.clients` for its lifetime,
so the server never leaves on idle under a run that may still call it."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Literal

import platformdirs

from codeheal.errors import ModelError
from codeheal.llm.server import Endpoint

START_TIMEOUT_S = 180.0
"""The longest a run waits for a server to load its model (or for another run starting it)."""
ANSWER_TIMEOUT_S = 10.0
"""The longest a running server may take to answer /health before the run gives up on it."""
POLL_S = 0.05
MODULE = "codeheal.llm.resident"


@dataclass(frozen=True)
class Resident:
    """What a running resident server wrote about itself into its state file."""

    pid: int
    model: str
    path: str
    base_url: str
    """Its OpenAI-compatible address, http://127.0.0.1:PORT/v1."""
    token: str
    started: float
    """When it was ready (seconds since the epoch)."""
    start_seconds: float
    """How long it took to load its model."""
    slots: int
    idle_s: float
    weights: tuple[int, int, int]
    """The model file's inode, size and mtime (ns) when it loaded it: another means it changed."""
    threads: int = 0
    """The CPU threads llama.cpp runs on (0: a server of an older codeheal, which did not say)."""
    threads_why: str = ""
    """Why that many (CODEHEAL_LOCAL_THREADS, or the cores and load they were chosen from)."""

    @property
    def endpoint(self) -> Endpoint:
        """Where a run asks it, with its token."""
        return Endpoint(base_url=self.base_url, model_name=self.model, api_key=self.token, slots=self.slots)


@dataclass(frozen=True)
class Arrival:
    """How this process came to its model server: found running ("warm"), started by it
    ("started"), or started again after it had died ("restarted"), and the seconds that took."""

    how: Literal["warm", "started", "restarted"]
    seconds: float


_arrivals: dict[str, Arrival] = {}
_clients: dict[str, IO[bytes]] = {}
"""The `<key>.clients` files this process holds a shared lock on (one per server it uses)."""
_restarted: set[str] = set()


def runtime_dir() -> Path:
    """The user's private directory for the resident servers' files: codeheal under the
    runtime directory ($XDG_RUNTIME_DIR, else platformdirs' /run/user/UID or /tmp/runtime-UID),
    else codeheal-UID under the temp directory; created 0700, and passed over when another
    user owns it (it would hold the servers' access tokens)."""
    with warnings.catch_warnings():  # platformdirs warns when it falls back from XDG_RUNTIME_DIR
        warnings.simplefilter("ignore")
        preferred = Path(platformdirs.user_runtime_dir("codeheal"))
    for directory in (preferred, Path(tempfile.gettempdir()) / f"codeheal-{os.getuid()}"):
        try:
            if directory is preferred and directory.parent.name == f"runtime-{os.getuid()}":
                directory.parent.mkdir(mode=0o700, exist_ok=True)  # platformdirs' fallback, not made by it
            directory.mkdir(mode=0o700, exist_ok=True)
            info = directory.lstat()
            if info.st_uid != os.getuid() or not stat.S_ISDIR(info.st_mode):
                continue
            if info.st_mode & 0o077:
                os.chmod(directory, 0o700)
        except OSError:
            continue
        return directory
    raise ModelError(f"no private directory for the model server's files: neither {preferred} nor one in the temp "
                     "directory can be made this user's own")


def server_key(path: Path) -> str:
    """The name of a model file's server files: the file's stem and a hash of its full path."""
    return f"{path.stem}-{hashlib.sha256(str(path).encode()).hexdigest()[:8]}"


def ensure_resident(path: Path, name: str) -> Endpoint:
    """The endpoint of this user's resident server for the GGUF at `path`: the running one,
    else one started now (waiting while another process starts it). A server that had died
    is started again once per process, saying so in one line on stderr; ModelError when one
    does not answer within ANSWER_TIMEOUT_S or cannot start. Only a server this process had
    used counts against that once: a state file left by one that died before is not a restart
    this run made."""
    key = server_key(path)
    directory = runtime_dir()
    began = time.monotonic()
    with _locked(directory / f"{key}.lock", START_TIMEOUT_S, f"another run starting the model server for {name}"):
        resident = read_state(directory / f"{key}.json")
        how: Literal["warm", "started", "restarted"] = "warm"
        if resident is not None and not _alive(resident.pid):
            if key in _restarted:
                raise ModelError(f"the model server for {name} stopped again (pid {resident.pid}); its log is "
                                 f"{directory / f'{key}.log'}")
            print(f"codeheal: the model server for {name} (pid {resident.pid}) had stopped; starting it again",
                  file=sys.stderr, flush=True)
            (directory / f"{key}.json").unlink(missing_ok=True)
            if key in _arrivals:  # only a server this process used counts: one found dead at the start is no loop
                _restarted.add(key)
            resident, how = None, "restarted"
        if resident is None:
            resident = _spawn(path, name, directory, key)
            how = "started" if how == "warm" else how
        elif not _answers(resident):
            raise ModelError(f"the model server for {name} (pid {resident.pid}, {resident.base_url}) does not answer "
                             f"within {ANSWER_TIMEOUT_S:.0f} s; `codeheal model stop` ends it")
        _hold(directory, key)
    _arrivals.setdefault(key, Arrival(how=how, seconds=round(time.monotonic() - began, 2)))
    return resident.endpoint


def arrival() -> Arrival | None:
    """How this process first came to a resident server (None: it used none)."""
    return next(iter(_arrivals.values()), None)


def running() -> list[Resident]:
    """The user's resident servers that are alive (a state file left by a dead one is removed)."""
    directory = runtime_dir()
    found = []
    for state in sorted(directory.glob("*.json")):
        resident = read_state(state)
        if resident is None:
            continue
        if _alive(resident.pid):
            found.append(resident)
        else:
            state.unlink(missing_ok=True)
    return found


def stop(resident: Resident, wait_s: float = 10.0) -> None:
    """End a resident server: SIGTERM, then SIGKILL if it is still there after `wait_s`."""
    for signum, wait in ((signal.SIGTERM, wait_s), (signal.SIGKILL, 2.0)):
        try:
            os.kill(resident.pid, signum)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if not _alive(resident.pid):
                return
            time.sleep(POLL_S)
    raise ModelError(f"the model server (pid {resident.pid}) did not stop")


@dataclass(frozen=True)
class Slot:
    """One of a server's slots now: whether it is busy with a request, and the tokens it has
    written of that request's reply (0 while it reads the prompt)."""

    busy: bool
    written: int


def slots(resident: Resident) -> list[Slot] | None:
    """What each of a server's slots does now (None: it did not say)."""
    request = urllib.request.Request(resident.base_url.removesuffix("/v1") + "/slots",
                                     headers={"Authorization": f"Bearer {resident.token}"})
    try:
        with urllib.request.urlopen(request, timeout=ANSWER_TIMEOUT_S) as response:
            return [Slot(busy=bool(slot["is_processing"]),
                         written=int(slot["next_token"][0]["n_decoded"]) if slot["is_processing"] else 0)
                    for slot in json.loads(response.read())]
    except (urllib.error.URLError, OSError, ValueError, LookupError, TypeError):
        return None


def resident_set_bytes(pid: int) -> int | None:
    """A process's resident memory (VmRSS), None where it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def read_state(state: Path) -> Resident | None:
    """The state file's record, None when there is none (or it is unreadable: being replaced)."""
    try:
        data = json.loads(state.read_text())
        return Resident(**{**data, "weights": tuple(data["weights"])})
    except (OSError, ValueError, TypeError, KeyError):
        return None


def write_state(state: Path, resident: Resident) -> None:
    """Write a server's state file, 0600, whole or not at all."""
    temporary = state.with_suffix(f".{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(asdict(resident), handle)
    os.replace(temporary, state)


def private_file(path: Path) -> IO[bytes]:
    """`path` opened for appending (to lock it), created readable by this user alone."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab")


def weights_signature(path: Path) -> tuple[int, int, int]:
    """What says a model file changed: its inode, size and mtime; zeros when it is gone."""
    try:
        info = path.stat()
    except OSError:
        return (0, 0, 0)
    return (info.st_ino, info.st_size, info.st_mtime_ns)


@contextmanager
def _locked(lock: Path, timeout_s: float, holder: str) -> Iterator[None]:
    with private_file(lock) as handle:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ModelError(f"waited {timeout_s:.0f} s for {holder}; `codeheal model status` shows it") from None
                time.sleep(POLL_S)
        yield


def _hold(directory: Path, key: str) -> None:
    """Take (once per process) a shared lock on the server's clients file, kept until exit."""
    if key not in _clients:
        handle = private_file(directory / f"{key}.clients")
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH)
        _clients[key] = handle


def _spawn(path: Path, name: str, directory: Path, key: str) -> Resident:
    log = os.open(directory / f"{key}.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", MODULE, str(path), name], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            start_new_session=True,  # Ctrl-C in the run's terminal does not reach it
        )
    finally:
        os.close(log)
    deadline = time.monotonic() + START_TIMEOUT_S
    state = directory / f"{key}.json"
    while time.monotonic() < deadline:
        resident = read_state(state)
        if resident is not None and resident.pid == process.pid:
            return resident
        if process.poll() is not None:
            tail = (directory / f"{key}.log").read_text(errors="replace").strip().splitlines()[-3:]
            raise ModelError(f"the model server for {name} exited (status {process.returncode}) before it was ready: "
                             f"{' / '.join(tail) or 'no output'} (log: {directory / f'{key}.log'})")
        time.sleep(POLL_S)
    process.kill()
    raise ModelError(f"the model server for {name} was not ready within {START_TIMEOUT_S:.0f} s")


def _alive(pid: int) -> bool:
    """Whether `pid` is a resident model server (not merely a process that got its number)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        status = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return MODULE.encode() in command and status.rsplit(")", 1)[-1].split()[0] != "Z"


def _answers(resident: Resident) -> bool:
    try:
        with urllib.request.urlopen(resident.base_url.removesuffix("/v1") + "/health", timeout=ANSWER_TIMEOUT_S) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False
