"""Ctrl-C (SIGINT), SIGTERM and SIGKILL during a slow model call, in both forms: the run stops
promptly, keeps its last checkpoint, says how to continue, and `codeheal resume` continues it."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from doubles import SHOP, SHOP_FIXED
from killing import cli_env, codeheal
from scripted_openai import (
    ADD_TASK,
    ADD_TESTS,
    LESSON,
    ScriptedServer,
    heal_add,
    is_actor,
    is_fix_actor,
)

PROMPT_EXIT_S = 5.0
"""A generous bound on how long a signalled run may take to exit (the aim is under 2 s)."""
OUTPUT = {signal.SIGINT: [], signal.SIGTERM: ["--json"], signal.SIGKILL: ["--format", "github"]}
"""How a resumed fix thread prints its result: every output format is tried once."""
EXIT_CODE = {signal.SIGINT: 130, signal.SIGTERM: 143}


def fix_script(body: dict) -> str:
    return SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON


def writing_code(body: dict) -> bool:
    return is_actor(body["messages"]) or is_fix_actor(body["messages"])


def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.email=t@e.com", "-c", "user.name=t", "commit", "-qm", "shop"]):
        subprocess.run(["git", *args], cwd=project, check=True, capture_output=True)
    return project


def start(form: str, tmp_path: Path, server: ScriptedServer, env: dict) -> tuple[subprocess.Popen, int]:
    """Start a run of `form` whose model call after the first reflection hangs; returns the
    process and how many code-writing calls are made once it hangs."""
    model = ["--model", "scripted", "--base-url", server.url, "--thread", "t1"]
    if form == "module":
        tests = tmp_path / "tests.py"
        tests.write_text(ADD_TESTS)
        return codeheal("solve", ADD_TASK, "--tests", str(tests), "--policy", "self_heal", *model, env=env), 2
    return codeheal("fix", str(shop(tmp_path)), "--test", "python -m pytest -q", "--mutants", "0", *model, env=env), 1


def hang_when(server: ScriptedServer, calls: int) -> None:
    """The `calls`-th code-writing request takes 'forever'."""
    server.delay = lambda body: 120.0 if writing_code(body) and _writes(server) == calls else 0.0


def _writes(server: ScriptedServer) -> int:
    return sum(writing_code(body) for body in server.requests)


def wait_for_hang(proc: subprocess.Popen, server: ScriptedServer, calls: int) -> None:
    deadline = time.monotonic() + 90
    while _writes(server) < calls or server.in_flight == 0:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the hanging model call never came"
        time.sleep(0.05)
    time.sleep(0.3)  # well inside the call


@pytest.mark.parametrize("form", ["module", "project"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL], ids=["int", "term", "kill"])
def test_a_signal_during_a_model_call_stops_the_run_and_resume_heals_it(tmp_path: Path, form: str, sig) -> None:
    env = cli_env(tmp_path / "data")
    script = heal_add if form == "module" else fix_script
    with ScriptedServer(script) as server:
        proc, calls = start(form, tmp_path, server, env)
        hang_when(server, calls)
        wait_for_hang(proc, server, calls)
        sent = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        seconds = time.monotonic() - sent
        print(f"{form} {sig.name}: exited {seconds:.2f} s after the signal")
        if sig != signal.SIGKILL:
            assert proc.returncode == EXIT_CODE[sig], err
            assert seconds < PROMPT_EXIT_S, err
            assert "interrupted; continue with: codeheal resume t1" in err
            assert out == ""

        listed, _ = codeheal("threads", "--json", env=env).communicate(timeout=60)
        assert json.loads(listed)[0]["status"] == "unfinished"
        server.delay = lambda body: 0.0
        model = ["--model", "scripted", "--base-url", server.url]
        output = OUTPUT[sig] if form == "project" else ["--json"]
        resumed = codeheal("resume", "t1", *output, *model, env=env)
        out, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert "resuming at attempt 2" in err
    if output == ["--json"]:
        result = json.loads(out)
        assert result["status"] == "passed" and result["attempts"] == 2
        if form == "project":
            assert "+        if quantity >= threshold:" in result["diff"]
    elif output == []:
        assert out.startswith("--- a/shop/pricing.py\n") and "+        if quantity >= threshold:" in out
    else:
        assert out.startswith("::error file=shop/pricing.py,line="), out
