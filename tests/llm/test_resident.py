"""The resident model server: one per user and model, outside the run's process, found through
a private runtime directory, behind a token; restarted once, stopped on idle, on a changed
model file and on `codeheal model stop`. The real-model tests (marked `model`) use the 0.5B
model; tests/conftest.py gives the suite a runtime directory of its own and stops its servers."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from codeheal.cli import main
from codeheal.errors import ConfigError, ModelError
from codeheal.llm import discovery
from codeheal.llm.discovery import (
    Resident,
    Slot,
    read_state,
    running,
    runtime_dir,
    server_key,
    stop,
    write_state,
)
from codeheal.llm.factory import serves_in_process
from codeheal.llm.resident import idle_seconds

CLIENT = """
import json, sys
from codeheal.llm.discovery import arrival, ensure_resident
from codeheal.llm.server import model_file
endpoint = ensure_resident(*model_file(sys.argv[1]))
print(json.dumps({"base_url": endpoint.base_url, "token": endpoint.api_key, "how": arrival().how}))
"""


def _client(model: str, **env: str) -> subprocess.Popen:
    """A process that finds (or starts) the resident server for `model`, says how, and exits."""
    return subprocess.Popen([sys.executable, "-c", CLIENT, model], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, **env})


def _answer(process: subprocess.Popen) -> tuple[dict, str]:
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err
    return json.loads(out), err


def _state(model_path: Path) -> Resident:
    resident = read_state(runtime_dir() / f"{server_key(model_path)}.json")
    assert resident is not None
    return resident


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not discovery._alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_the_runtime_directory_is_the_users_own_and_closed_to_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    (tmp_path / "codeheal").mkdir(mode=0o755)
    assert runtime_dir() == tmp_path / "codeheal"
    assert stat.S_IMODE((tmp_path / "codeheal").stat().st_mode) == 0o700


def test_without_a_runtime_directory_a_private_one_in_the_temp_directory_serves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A user with no login session: XDG_RUNTIME_DIR unset and no /run/user/UID.
    monkeypatch.setattr(discovery.platformdirs, "user_runtime_dir", lambda name: f"/nonexistent/run/{name}")
    monkeypatch.setattr(discovery.tempfile, "gettempdir", lambda: str(tmp_path))
    directory = runtime_dir()
    assert directory == tmp_path / f"codeheal-{os.getuid()}"
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_the_state_file_is_written_for_this_user_alone_and_a_dead_servers_is_dropped(tmp_path: Path) -> None:
    state = runtime_dir() / "test-dead.json"
    gone = Resident(pid=os.getpid(), model="m", path="/m.gguf", base_url="http://127.0.0.1:9/v1", token="t",
                    started=0.0, start_seconds=1.0, slots=1, idle_s=300.0, weights=(1, 2, 3))
    write_state(state, gone)
    assert stat.S_IMODE(state.stat().st_mode) == 0o600
    assert read_state(state) == gone
    assert all(server.pid != os.getpid() for server in running())  # this process is no model server
    assert not state.exists()


def test_the_server_settings_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CODEHEAL_LOCAL_IDLE", raising=False)
    monkeypatch.delenv("CODEHEAL_LOCAL_SERVER", raising=False)
    assert (idle_seconds(), serves_in_process()) == (300.0, False)
    monkeypatch.setenv("CODEHEAL_LOCAL_SERVER", "In-Process")
    assert serves_in_process()
    for name, value in (("CODEHEAL_LOCAL_IDLE", "0"), ("CODEHEAL_LOCAL_IDLE", "soon"), ("CODEHEAL_LOCAL_SERVER", "remote")):
        monkeypatch.setenv(name, value)
        with pytest.raises(ConfigError, match=name):
            idle_seconds() if name == "CODEHEAL_LOCAL_IDLE" else serves_in_process()


@pytest.fixture(scope="module")
def model_copy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the 0.5B model's file: a server of its own, whose file a test may change."""
    from codeheal.llm.weights import LOCAL_MODELS, ensure_model

    copy = tmp_path_factory.mktemp("model") / "copy-0.5b.gguf"
    shutil.copyfile(ensure_model(spec=LOCAL_MODELS["local-0.5b"]), copy)
    yield copy
    for server in running():
        if server.path == str(copy):
            stop(server)


@pytest.mark.model
def test_two_runs_starting_at_once_start_one_server_which_status_shows_and_stop_ends(
    model_copy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _client(str(model_copy)), _client(str(model_copy))
    answers = [_answer(first)[0], _answer(second)[0]]
    assert sorted(a["how"] for a in answers) == ["started", "warm"]
    assert answers[0]["base_url"] == answers[1]["base_url"] and answers[0]["base_url"].startswith("http://127.0.0.1:")
    server = _state(model_copy)
    assert [s.pid for s in running() if s.path == str(model_copy)] == [server.pid]
    assert stat.S_IMODE((runtime_dir() / f"{server_key(model_copy)}.json").stat().st_mode) == 0o600
    with pytest.raises(urllib.error.HTTPError, match="401"):  # no token, no model
        urllib.request.urlopen(server.base_url + "/models", timeout=10)
    authorised = urllib.request.Request(server.base_url + "/models", headers={"Authorization": f"Bearer {server.token}"})
    with urllib.request.urlopen(authorised, timeout=10) as response:
        assert [m["id"] for m in json.load(response)["data"]] == ["copy-0.5b"]

    assert main(["model", "status"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert f"copy-0.5b: pid {server.pid}, since " in shown and "MiB resident, 1 slot(s), 0 busy" in shown
    assert f"{server.threads} CPU thread(s) (chosen: " in shown and server.threads >= 1
    assert main(["model", "stop"]) == 0
    assert f"stopped the model server for copy-0.5b (pid {server.pid})" in capsys.readouterr().err
    assert _gone(server.pid, 1) and running() == []


@pytest.mark.model
def test_a_dead_server_is_started_again_once_saying_so_in_one_line(model_copy: Path) -> None:
    _answer(_client(str(model_copy)))
    dead = _state(model_copy)
    os.kill(dead.pid, signal.SIGKILL)
    assert _gone(dead.pid, 5)
    answer, err = _answer(_client(str(model_copy)))
    assert answer["how"] == "restarted" and answer["token"] != dead.token
    assert err.splitlines() == [f"codeheal: the model server for copy-0.5b (pid {dead.pid}) had stopped; starting it again"]
    stop(_state(model_copy))


@pytest.mark.model
def test_the_server_leaves_once_unused_and_when_its_model_file_changes(model_copy: Path) -> None:
    log = runtime_dir() / f"{server_key(model_copy)}.log"
    _answer(_client(str(model_copy), CODEHEAL_LOCAL_IDLE="1"))
    idle = _state(model_copy)
    assert _gone(idle.pid, 15), "the server stayed although no process used it"
    assert "stopped, unused for 1 s" in log.read_text()
    _answer(_client(str(model_copy)))
    changed = _state(model_copy)
    os.utime(model_copy)  # as a reassembled file would
    assert _gone(changed.pid, 15), "the server stayed on a model file that changed"
    assert "stopped, its model file changed" in log.read_text()
    assert running() == [] or all(s.path != str(model_copy) for s in running())


@pytest.mark.model
def test_a_server_that_does_not_answer_ends_the_run_with_exit_3(model_copy: Path, tmp_path: Path) -> None:
    _answer(_client(str(model_copy)))
    stuck = _state(model_copy)
    os.kill(stuck.pid, signal.SIGSTOP)
    try:
        tests = tmp_path / "tests.py"
        tests.write_text("assert add(2, 3) == 5\n")
        done = subprocess.run(
            [sys.executable, "-m", "codeheal", "solve", "Write add(a, b).", "--tests", str(tests), "--model",
             str(model_copy), "--checkpointer", str(tmp_path / "c.sqlite")],
            capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL, check=False,
        )
    finally:
        os.kill(stuck.pid, signal.SIGCONT)
    assert done.returncode == 3, done.stderr
    assert f"(pid {stuck.pid}, {stuck.base_url}) does not answer within 10 s" in " ".join(done.stderr.split())
    stop(stuck)


@pytest.mark.model
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_run_stops_within_a_second_mid_generation_and_the_server_stops_writing(
    tmp_path: Path, signum: int, code: int
) -> None:
    """The default path's interrupt: the run only speaks HTTP to the resident server, so Ctrl-C
    (or SIGTERM) ends it at once with the line that says how to continue, and the server
    stops writing the reply whose client went away (a streamed request: llama.cpp notices at
    its next token; a prompt it is reading is read to the end)."""
    from codeheal.llm.discovery import slots
    from codeheal.llm.server import model_file

    _answer(_client("local-0.5b"))  # warm: the interrupt must land in the generation, not the load
    server = _state(model_file("local-0.5b")[0])
    examples = Path(__file__).resolve().parents[2] / "examples" / "fizzbuzz"
    run = subprocess.Popen(
        [sys.executable, "-m", "codeheal", "solve", f"@{examples / 'task.md'}", "--tests", str(examples / "tests.py"),
         "--model", "local-0.5b", "--checkpointer", str(tmp_path / "c.sqlite")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
    )
    deadline = time.monotonic() + 120
    while not any(slot.written for slot in slots(server) or []):  # the reply is being written
        assert run.poll() is None and time.monotonic() < deadline, "the run never had the model write"
        time.sleep(0.02)
    sent = time.monotonic()
    run.send_signal(signum)
    _, err = run.communicate(timeout=30)
    took = time.monotonic() - sent
    assert run.returncode == code, err
    assert "interrupted; continue with: codeheal resume " in err
    assert took < 1.0, f"the run took {took:.2f} s to stop"
    deadline = time.monotonic() + 3
    while any(slot.busy for slot in slots(server) or [Slot(busy=True, written=0)]):
        assert time.monotonic() < deadline, "the server went on writing for a run that had gone"
        time.sleep(0.05)


@pytest.mark.model
def test_the_json_breakdown_says_the_model_server_was_warm(tmp_path: Path) -> None:
    _answer(_client("local-0.5b"))
    tests = tmp_path / "tests.py"
    tests.write_text("assert add(2, 3) == 5\n")
    done = subprocess.run(
        [sys.executable, "-m", "codeheal", "solve", "Write add(a, b).", "--tests", str(tests), "--model", "local-0.5b",
         "--max-attempts", "1", "--json", "--checkpointer", str(tmp_path / "c.sqlite")],
        capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL, check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    spent = json.loads(done.stdout)["totals"]["breakdown"]
    assert spent["model_server"] == "warm" and spent["model_start_seconds"] < 1.0


@pytest.mark.model
def test_a_server_that_dies_during_a_run_is_started_again_once_and_the_run_goes_on(
    model_copy: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    from codeheal import Context
    from codeheal.llm.factory import _cached_model, chat_model

    _answer(_client(str(model_copy)))
    left = _state(model_copy)
    os.kill(left.pid, signal.SIGKILL)  # a server that died before this process used it: no restart of this run's
    assert _gone(left.pid, 5)
    _cached_model.cache_clear()
    model = chat_model(Context(model=str(model_copy)), 0.0, 8)
    assert model.invoke("Say hi.").content
    dead = _state(model_copy)
    os.kill(dead.pid, signal.SIGKILL)
    assert _gone(dead.pid, 5)
    assert model.invoke("Say hi.").content  # the same client, on the server started again
    again = _state(model_copy)
    assert again.pid != dead.pid and model.openai_api_base == again.base_url
    assert f"the model server for copy-0.5b (pid {dead.pid}) had stopped; starting it again" in capfd.readouterr().err
    os.kill(again.pid, signal.SIGKILL)
    assert _gone(again.pid, 5)
    with pytest.raises(ModelError, match="stopped again"):  # once per process
        model.invoke("Say hi.")
    _cached_model.cache_clear()
