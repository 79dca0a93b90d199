"""Ctrl-C at every moment of a run on the embedded model (the 0.5B one): while the resident
server loads, while the run waits for its slot, while the server reads the prompt, while a
sandbox job runs, during the screen. Each ends with exit 130 within a second of SIGINT, and
once the run has a thread, with the line that says how to continue it. (While the model
writes: tests/llm/test_resident.py.)"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codeheal.llm.discovery import (
    Resident,
    ensure_resident,
    read_state,
    running,
    runtime_dir,
    server_key,
    slots,
    stop,
)
from codeheal.llm.server import model_file

pytestmark = pytest.mark.timeout(600)

MODEL = "local-0.5b"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "fizzbuzz"
RANGES = Path(__file__).resolve().parent.parent / "project" / "fixtures" / "ranges"
RESUME_LINE = "interrupted; continue with: codeheal resume "


class Run:
    """A `codeheal` process whose stderr is read line by line as it comes."""

    def __init__(self, args: list[str], tmp_path: Path, *, sigint_ignored: bool = False) -> None:
        self.lines: list[str] = []
        command = [sys.executable, "-m", "codeheal", *args, "--model", MODEL, "--checkpointer", str(tmp_path / "c.sqlite")]
        if sigint_ignored:  # as a background job of a non-interactive shell starts: the cold start
            command = ["sh", "-c", 'trap "" INT; exec "$@"', "sh", *command]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True,
                                        env={**os.environ, "XDG_DATA_HOME": str(tmp_path)})
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.append(line)

    def wait_until(self, ready: Callable[[], bool], what: str, within_s: float = 180) -> None:
        deadline = time.monotonic() + within_s
        while not ready():
            assert self.process.poll() is None, f"the run ended before {what}: {''.join(self.lines)}"
            assert time.monotonic() < deadline, f"the run never reached {what}: {''.join(self.lines)}"
            time.sleep(0.01)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def interrupt(self) -> tuple[int, float, str]:
        """SIGINT now: the exit status, the seconds it took and the run's stderr."""
        sent = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        self.process.wait(timeout=60)
        took = time.monotonic() - sent
        self.reader.join(timeout=5)
        return self.process.returncode, took, "".join(self.lines)


def _solve(tmp_path: Path, *extra: str, task: str | None = None, **options: bool) -> Run:
    task_arg = f"@{EXAMPLES / 'task.md'}"
    if task is not None:
        (tmp_path / "task.md").write_text(task)
        task_arg = f"@{tmp_path / 'task.md'}"
    return Run(["solve", task_arg, "--tests", str(EXAMPLES / "tests.py"), *extra], tmp_path, **options)


def _stopped_at_once(run: Run, *, resumable: bool = True) -> None:
    code, took, err = run.interrupt()
    print(f"SIGINT to exit: {took:.2f} s")  # -s shows it (the benchmark's figure: docs/cli.md)
    assert code == 130, err
    assert took < 1.0, f"the run took {took:.2f} s to stop: {err}"
    if resumable:
        assert RESUME_LINE in err, err


def _warm() -> Resident:
    path, name = model_file(MODEL)
    ensure_resident(path, name)
    resident = read_state(runtime_dir() / f"{server_key(path)}.json")
    assert resident is not None
    return resident


def _idle(server: Resident, within_s: float = 120) -> None:
    """Wait until the server's slots are free (a prompt it was reading is read to the end)."""
    deadline = time.monotonic() + within_s
    while any(slot.busy for slot in slots(server) or []):
        assert time.monotonic() < deadline, "the server stayed busy"
        time.sleep(0.1)


@pytest.mark.model
@pytest.mark.parametrize("sigint_ignored", [False, True], ids=["sigint-default", "sigint-ignored-at-start"])
def test_ctrl_c_while_the_model_server_loads(tmp_path: Path, sigint_ignored: bool) -> None:
    """A cold start: the server is still loading its model (its log made, its state file not yet
    written) when SIGINT comes. A run started with SIGINT ignored (a script's background job)
    hears it too: it went on to the end before."""
    for server in running():
        stop(server)
    path, _ = model_file(MODEL)
    key = server_key(path)
    log, state = runtime_dir() / f"{key}.log", runtime_dir() / f"{key}.json"
    log.unlink(missing_ok=True)
    run = _solve(tmp_path, sigint_ignored=sigint_ignored)
    run.wait_until(log.exists, "the server's start")
    assert not state.exists(), "the server was ready before the interrupt could land in its start"
    _stopped_at_once(run)
    deadline = time.monotonic() + 120  # the server, detached, loads on: the next cold start must be cold
    while (resident := read_state(state)) is None:
        assert time.monotonic() < deadline, "the server the run started never came up"
        time.sleep(0.1)
    stop(resident)


@contextlib.contextmanager
def _slot_taken(server: Resident) -> Iterator[None]:
    """The server's one slot writing a long reply for another client (a streamed request,
    dropped at the end: the server stops writing it)."""
    address = server.base_url.removeprefix("http://").removesuffix("/v1")
    connection = http.client.HTTPConnection(address, timeout=120)
    body = {"model": server.model, "stream": True, "max_tokens": 2000, "temperature": 0,
            "messages": [{"role": "user", "content": "Write the numbers from 1 to 5000, separated by commas."}]}
    connection.request("POST", "/v1/chat/completions", json.dumps(body),
                       {"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"})
    response = connection.getresponse()
    response.read1(64)  # writing
    try:
        yield
    finally:
        connection.sock.close()
        connection.close()


def _deferred(server: Resident) -> float:
    """llama.cpp's count of requests waiting for a slot now."""
    request = urllib.request.Request(server.base_url.removesuffix("/v1") + "/metrics",
                                     headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith("llamacpp:requests_deferred"))


@pytest.mark.model
def test_ctrl_c_while_the_run_waits_for_a_slot(tmp_path: Path) -> None:
    """Another client holds the server's one slot: the run's request waits, deferred, when SIGINT comes."""
    server = _warm()
    _idle(server)
    with _slot_taken(server):
        run = _solve(tmp_path)
        run.wait_until(lambda: _deferred(server) >= 1, "a request waiting for the slot")
        _stopped_at_once(run)
    _idle(server)


@pytest.mark.model
def test_ctrl_c_while_the_server_reads_the_prompt(tmp_path: Path) -> None:
    """A long task (new to the server's cache): its slot is busy and has written nothing yet."""
    server = _warm()
    _idle(server)
    filler = " ".join(f"Note {n}: the list holds strings, never numbers, and keeps the order of 1..n." for n in range(120))
    task = f"{uuid.uuid4().hex}\n{(EXAMPLES / 'task.md').read_text()}\n{filler}\n"
    run = _solve(tmp_path, task=task)
    run.wait_until(lambda: any(slot.busy and not slot.written for slot in slots(server) or []), "the prompt's reading")
    _stopped_at_once(run)
    _idle(server)


@pytest.mark.model
def test_ctrl_c_while_a_sandbox_job_runs(tmp_path: Path) -> None:
    """The starting code's tests run (before any model call) and take a minute."""
    _warm()
    (tmp_path / "start.py").write_text("def fizzbuzz(n):\n    return []\n")
    slow_tests = "import time\n\ndef test_slowly():\n    time.sleep(60)\n    assert fizzbuzz(0) == []\n"
    (tmp_path / "tests.py").write_text(slow_tests)
    run = Run(["solve", f"@{EXAMPLES / 'task.md'}", "--tests", str(tmp_path / "tests.py"), "--code",
               str(tmp_path / "start.py")], tmp_path)
    run.wait_until(lambda: run.said("thread "), "the run's start")
    run.wait_until(lambda: _descendants_running(run.process.pid, "supervisor"), "the sandbox job")
    _stopped_at_once(run)


@pytest.mark.model
def test_ctrl_c_during_the_screen(tmp_path: Path) -> None:
    """`fix`: the project as it is was tested, and the screen's one-line mutations are being
    tested (each test run slowed down by the project's conftest.py)."""
    _warm()
    project = tmp_path / "ranges"
    shutil.copytree(RANGES, project)
    (project / "conftest.py").write_text("import time\n\ntime.sleep(3)\n")
    run = Run(["fix", str(project), "--test", "python -m pytest -q"], tmp_path)
    run.wait_until(lambda: run.said("one-line mutations"), "the screen")
    _stopped_at_once(run)


def _descendants_running(pid: int, text: str) -> bool:
    """Whether a process below `pid` has `text` in its command line."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[-1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    below, found = list(children.get(pid, [])), False
    while below and not found:
        child = below.pop()
        try:
            found = text.encode() in (Path("/proc") / str(child) / "cmdline").read_bytes()
        except OSError:
            continue
        below += children.get(child, [])
    return found
