"""Running `codeheal` as a subprocess and killing it at a known point of a run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, is_actor


def cli_env(data_home: Path, **extra: str) -> dict[str, str]:
    """The environment of a `codeheal` subprocess: its own data directory, no settings
    leaking in from the developer's shell."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEHEAL_", "OPENAI_"))}
    return {**env, "XDG_DATA_HOME": str(data_home), **extra}


def codeheal(*args: str, env: dict[str, str]) -> subprocess.Popen:
    """Start `codeheal ARGS` with its output captured."""
    return subprocess.Popen([sys.executable, "-m", "codeheal.cli", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def hang_second_attempt(server: ScriptedServer) -> None:
    """The model takes 'forever' to write attempt 2: the window in which we kill."""
    server.delay = lambda body: 120.0 if is_actor(body["messages"]) and len(server.actor_calls()) == 2 else 0.0


def kill_after_first_reflection(
    proc: subprocess.Popen, server: ScriptedServer, checkpointed: Callable[[], dict]
) -> dict:
    """SIGKILL `proc` once its first reflection is checkpointed and attempt 2 is being
    written; returns the state the latest checkpoint then holds."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        state = checkpointed()
        if state.get("reflections") and len(server.actor_calls()) == 2:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            return state
        time.sleep(0.1)
    proc.kill()
    pytest.fail("the first reflection was never checkpointed")
