"""`cd studio && langgraph dev` serves codeheal offline: the graph's shape, a thread run that
completes, and the custom progress events on the server's stream.

The server runs codeheal with ChatOpenAI pointed (through CODEHEAL_MODEL / CODEHEAL_BASE_URL)
at a small real OpenAI-compatible HTTP server in this process that replies from a script."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, replies_in_order
from langgraph_sdk import get_sync_client
from langgraph_sdk.client import SyncLangGraphClient

STUDIO = Path(__file__).resolve().parents[2] / "studio"
QUIET = {"LANGGRAPH_CLI_NO_ANALYTICS": "1", "LANGGRAPH_NO_VERSION_CHECK": "true", "LANGSMITH_TRACING": "false"}
STARTUP_S = 90

TASK = {"task": "Write add(a, b) returning the sum.", "tests": "assert add(2, 3) == 5\nassert add(-1, 1) == 0\n"}
WRONG = "```python\ndef add(a, b):\n    return a - b\n```"
RIGHT = "```python\ndef add(a, b):\n    return a + b\n```"
LESSON = "add subtracts; return a + b instead."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(proc: subprocess.Popen, url: str, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"langgraph dev exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"{url}/ok", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"langgraph dev did not answer within {STARTUP_S} s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="module")
def model_server() -> Iterator[ScriptedServer]:
    with ScriptedServer(replies_in_order([WRONG, RIGHT], reflection=LESSON)) as server:
        yield server


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("studio") / "langgraph-dev.log"


@pytest.fixture(scope="module")
def client(model_server: ScriptedServer, log: Path) -> Iterator[SyncLangGraphClient]:
    langgraph = shutil.which("langgraph", path=str(Path(sys.executable).parent))
    assert langgraph, "the langgraph CLI is missing: pip install -e '.[dev]' (langgraph-cli[inmem])"
    port = _free_port()
    with log.open("w") as log_file:
        env = {**os.environ, **QUIET, "CODEHEAL_MODEL": "fake-coder", "CODEHEAL_BASE_URL": model_server.url,
               "CODEHEAL_POLICY": "self_heal"}  # the script answers reflections (tests/conftest.py)
        proc = subprocess.Popen(
            [langgraph, "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1", "--port", str(port)],
            cwd=STUDIO, env=env, stdout=log_file, stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_until_up(proc, url, log)
            yield get_sync_client(url=url)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="module")
def assistant_id(client: SyncLangGraphClient) -> str:
    (assistant,) = client.assistants.search(graph_id="codeheal")
    return assistant["assistant_id"]


def test_served_graph_has_the_loop_and_its_conditional_edges(client, assistant_id):
    drawing = client.assistants.get_graph(assistant_id, xray=True)  # the attempt's steps drawn inside the run
    nodes = {node["id"] for node in drawing["nodes"]}
    assert {"prepare", "attempt:actor", "attempt:prepare_candidates", "attempt:test_candidate", "attempt:evaluator", "attempt:selector",
            "reflector", "review", "finish"} <= nodes
    edges = {(e["source"], e["target"]): e.get("conditional", False) for e in drawing["edges"]}
    assert edges[("finish", "__end__")] is False
    start, end = "attempt:__start__", "attempt:__end__"
    for conditional in [(end, "reflector"), (end, start), (end, "finish"),
                        (end, "review"), (start, "attempt:actor"), (start, "attempt:test_candidate"),
                        ("review", start), ("review", "finish"), ("attempt:actor", "attempt:prepare_candidates"),
                        ("attempt:prepare_candidates", "attempt:test_candidate"),
                        ("attempt:prepare_candidates", "attempt:actor"), ("attempt:actor", end), ("reflector", start), ("reflector", "finish")]:
        assert edges[conditional] is True, conditional
    assert edges[("attempt:test_candidate", "attempt:evaluator")] is False


def test_context_fields_carry_descriptions_for_the_studio_form(client, assistant_id):
    schema = client.assistants.get_schemas(assistant_id)["context_schema"]["properties"]
    assert {"model", "max_attempts", "review_on_exhaustion"} <= set(schema)
    assert all(field.get("description") for field in schema.values())


def test_thread_run_streams_progress_and_completes(client, assistant_id, model_server, log):
    thread = client.threads.create()
    parts = list(client.runs.stream(
        thread["thread_id"], assistant_id, input=TASK, context={"max_attempts": 3},
        stream_mode=["custom", "updates"],
    ))
    errors = [part.data for part in parts if part.event == "error"]
    assert not errors, f"{errors}; server log:\n{log.read_text()[-4000:]}"
    custom = [part.data for part in parts if part.event == "custom"]
    assert [event["kind"] for event in custom] == [
        "run_started", "attempt_started", "candidates_written", "tests_result", "reflection_written",
        "attempt_started", "candidates_written", "tests_result", "status",
    ]
    assert custom[0] == {"kind": "run_started", "first": "model", "files": 0}
    assert custom[3]["isolation"] in ("bwrap", "basic")
    assert custom[3] | {"seconds": 0, "sandbox_seconds": 0} == {
        "kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 0, "total": 2,
        "summary": custom[3]["summary"], "seconds": 0, "sandbox_seconds": 0, "isolation": custom[3]["isolation"],
    }
    assert custom[4]["reflection"] == LESSON
    assert custom[7]["passed"] and custom[7]["passed_count"] == 2
    assert custom[8] == {"kind": "status", "status": "passed", "attempts": 2}
    assert any(part.event == "updates" for part in parts)

    values = client.threads.get_state(thread["thread_id"])["values"]
    assert values["status"] == "passed"
    assert "return a + b" in values["code"]
    assert values["reflections"] == [LESSON]
    assert any(r["model"] == "fake-coder" for r in model_server.requests)


def test_run_wait_returns_the_output_schema(client, assistant_id):
    thread = client.threads.create()
    result = client.runs.wait(
        thread["thread_id"], assistant_id,
        input={**TASK, "starting_code": "def add(a, b):\n    return a + b\n"},
    )
    assert result["status"] == "passed" and result["attempts"] == 1
    assert set(result) == {"code", "status", "attempts", "reflections", "history", "task_checks"}
