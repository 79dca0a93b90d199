"""Hostile candidates through the real graph and the real bubblewrap sandbox: each must end
as a failed attempt within timeout_s plus a margin, and leave the host unharmed."""

from __future__ import annotations

import os
import socket
import threading
import uuid
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import MARGIN_S, TIMEOUT_S, evaluate, running_with

from codeheal.sandboxes.limits import processes_of

pytestmark = [
    pytest.mark.usefixtures("contained"),
    pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here"),
]

TESTS = "assert attack() == 'never'\n"


def run_hostile(code: str, job_uids: list[int]) -> dict:
    """Evaluate one hostile candidate; check it failed in time and left no process behind.
    Returns every node update of the run."""
    updates, seconds = evaluate(code, TESTS)
    feedback = updates["feedback"]
    assert updates["status"] == "failed"
    assert not feedback["passed"]
    assert feedback["isolation"] == "bwrap"
    assert seconds < TIMEOUT_S + MARGIN_S, f"took {seconds:.1f}s"
    for uid in job_uids:
        assert processes_of(uid) == [], f"processes of job uid {uid} outlived the run"
    return updates


def test_infinite_loop_times_out(job_uids: list[int]) -> None:
    feedback = run_hostile("def attack():\n    while True:\n        pass\n", job_uids)["feedback"]
    assert feedback["timed_out"]
    assert "timed out" in feedback["error"]


def test_fork_bomb_is_bounded_and_killed(job_uids: list[int]) -> None:
    code = (
        "import os\n"
        "def attack():\n"
        "    while True:\n"
        "        try:\n"
        "            os.fork()\n"
        "        except OSError:\n"
        "            pass\n"
    )
    feedback = run_hostile(code, job_uids)["feedback"]
    assert feedback["timed_out"] or feedback["error"]


def test_memory_bomb_hits_the_address_space_limit(job_uids: list[int]) -> None:
    code = (
        "def attack():\n"
        "    try:\n"
        "        bytearray(3 * 1024 ** 3)\n"
        "        return 'allocated past the limit'\n"
        "    except MemoryError:\n"
        "        pass\n"
        "    hoard = []\n"
        "    while True:\n"
        "        hoard.append(bytearray(64 * 1024 * 1024))\n"
    )
    feedback = run_hostile(code, job_uids)["feedback"]
    # Filling pages is slow on some machines: the deadline may come before the limit does.
    assert feedback["failures"][0]["exception"] in ("MemoryError", "Timeout")
    assert "past the limit" not in repr(feedback)


def test_loopback_listener_sees_nothing(job_uids: list[int]) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        code = (
            "import socket\n"
            "def attack():\n"
            f"    with socket.create_connection(('127.0.0.1', {port}), timeout=1) as s:\n"
            "        s.sendall(b'stolen')\n"
            "    return 'connected'\n"
        )
        feedback = run_hostile(code, job_uids)["feedback"]
        with pytest.raises(TimeoutError):
            listener.accept()
    assert feedback["failures"][0]["exception"] in ("ConnectionRefusedError", "OSError")


def test_canary_in_environment_and_home_is_not_readable(
    job_uids: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = f"canary-{uuid.uuid4().hex}"
    monkeypatch.setenv("CODEHEAL_SECRET_CANARY", canary)
    secret_file = Path.home() / f".codeheal-canary-{uuid.uuid4().hex}"
    secret_file.write_text(canary)
    try:
        code = (
            "import os, glob\n"
            "def attack():\n"
            "    found = [' '.join(os.environ.values())]\n"
            "    for pattern in ('/proc/*/environ', os.path.expanduser('~/.codeheal-canary-*'),\n"
            f"                    {str(secret_file)!r}, '/root/.codeheal-canary-*', '/home/*/.codeheal-canary-*'):\n"
            "        for path in glob.glob(pattern):\n"
            "            try:\n"
            "                found.append(open(path, errors='replace').read())\n"
            "            except OSError as exc:\n"
            "                found.append(repr(exc))\n"
            "    print(found)\n"
            "    return found\n"
        )
        updates = run_hostile(code, job_uids)
    finally:
        secret_file.unlink()
    assert canary not in repr(updates)


def test_writes_outside_the_workspace_do_not_reach_the_host(job_uids: list[int], tmp_path: Path) -> None:
    marker = f"codeheal-escape-{uuid.uuid4().hex}"
    targets = [tmp_path / marker, Path.cwd() / marker, Path.home() / marker, Path("/var/tmp") / marker]
    code = (
        "def attack():\n"
        "    done = []\n"
        f"    for path in {[str(t) for t in targets]!r}:\n"
        "        try:\n"
        "            with open(path, 'w') as out:\n"
        "                out.write('escaped')\n"
        "            done.append(path)\n"
        "        except OSError:\n"
        "            pass\n"
        "    return done\n"
    )
    try:
        run_hostile(code, job_uids)
        assert [t for t in targets if t.exists()] == []
    finally:
        for target in targets:
            target.unlink(missing_ok=True)


def test_unbounded_printing_is_cut_and_flagged(job_uids: list[int]) -> None:
    code = "def attack():\n    while True:\n        print('x' * 10000)\n"
    feedback = run_hostile(code, job_uids)["feedback"]
    assert feedback["output_truncated"]
    assert len(feedback["stdout"]) < 10_000
    assert "flooding" in feedback["error"]


def test_child_in_a_new_session_does_not_outlive_the_run(job_uids: list[int]) -> None:
    token = f"codeheal-orphan-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys, time\n"
        "def attack():\n"
        f"    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)', {token!r}],\n"
        "                     start_new_session=True)\n"
        "    time.sleep(1.0)\n"
        "    return 'left a child behind'\n"
    )
    seen = threading.Event()
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            if running_with(token):
                seen.set()
            stop.wait(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        run_hostile(code, job_uids)
    finally:
        stop.set()
        watcher.join()
    assert seen.is_set(), "the orphan never started: the case proved nothing"
    assert not running_with(token)


def test_killing_the_parent_process_only_ends_the_sandbox(job_uids: list[int]) -> None:
    host_pid_ns = os.readlink("/proc/self/ns/pid")
    code = (
        "import os, signal\n"
        "def attack():\n"
        "    parent = os.getppid()\n"
        # never pid 1 of the host: only inside a pid namespace of its own
        f"    if parent != 1 or os.readlink('/proc/self/ns/pid') != {host_pid_ns!r}:\n"
        "        os.kill(parent, signal.SIGKILL)\n"
        "    return 'parent signalled'\n"
    )
    feedback = run_hostile(code, job_uids)["feedback"]
    # the module form's candidate's parent is the test process: killing it fails the run
    assert not feedback["passed"] and "parent signalled" not in str(feedback), feedback


def test_a_unix_socket_on_the_host_filesystem_cannot_be_reached(job_uids: list[int], tmp_path) -> None:
    import socket
    import tempfile

    folder = tempfile.mkdtemp(dir="/var/tmp")
    path = os.path.join(folder, "host.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    os.chmod(folder, 0o755)
    os.chmod(path, 0o777)
    listener.listen()
    try:
        code = (
            "import os, socket\n"
            "def attack():\n"
            f"    if not os.path.exists({path!r}):\n"
            "        return 'not there'\n"
            "    s = socket.socket(socket.AF_UNIX)\n"
            f"    s.connect({path!r})\n"
            "    return 'connected'\n"
        )
        feedback = run_hostile(code, job_uids)["feedback"]
        assert "'not there'" in feedback["failures"][0]["message"], feedback["failures"][0]
    finally:
        listener.close()
        os.unlink(path)
        os.rmdir(folder)


def test_an_inode_flood_ends_at_the_time_limit_and_leaves_nothing_behind(job_uids: list[int]) -> None:
    """bubblewrap 0.8 cannot bound the files of its tmpfs (docs/security.md, "Inodes"): empty
    files without end are stopped by the job's time limit, and go with the job's tmpfs."""
    prefix = f"codeheal-inode-{uuid.uuid4().hex[:8]}-"
    code = (
        "import os\n"
        "def attack():\n"
        "    n = 0\n"
        "    while True:\n"
        "        try:\n"
        f"            open(f'/tmp/{prefix}{{n}}', 'w').close()\n"
        "        except OSError:\n"
        "            pass\n"
        "        n += 1\n"
    )
    feedback = run_hostile(code, job_uids)["feedback"]
    assert feedback["timed_out"]
    assert not [name for name in os.listdir("/tmp") if name.startswith(prefix)]
