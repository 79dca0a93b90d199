"""The small commands stay small: `--version`, `--help`, `model status`, `threads` and `show`
import only what they use (no graph, no model client), so they answer in a fraction of a second
(measured: codeheal_bench/scripts/cli_startup.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import contextlib, io, json, sys
from codeheal.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
loaded = {name.split(".")[0] for name in sys.modules} | {name for name in sys.modules if name.startswith("codeheal.")}
print(json.dumps({"code": code, "out": out.getvalue(), "loaded": sorted(loaded)}))
"""
HEAVY = {"openai", "langchain_openai", "codeheal.loop", "codeheal.nodes.actor", "codeheal.llm.factory"}


def _probe(tmp_path: Path, *args: str) -> dict:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True,
                          env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    return json.loads(done.stdout)


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["model", "status"]])
def test_version_help_and_model_status_import_no_langchain_langgraph_or_openai(tmp_path: Path, args: list[str]) -> None:
    answer = _probe(tmp_path, *args)
    assert answer["code"] == 0
    assert not {"langchain_core", "langgraph", "openai", "langchain_openai"} & set(answer["loaded"])


def test_version_is_printed_on_stdout(tmp_path: Path) -> None:
    answer = _probe(tmp_path, "--version")
    assert answer["out"].startswith("codeheal ") and answer["out"].count("\n") == 1


def test_threads_and_show_read_the_checkpoints_without_the_graph_or_a_model_client(tmp_path: Path) -> None:
    from langgraph.checkpoint.sqlite import SqliteSaver

    from codeheal.loop.builder import build_graph

    db = tmp_path / "c.sqlite"
    with SqliteSaver.from_conn_string(str(db)) as saver:  # a run stopped after prepare: its attempt left to run
        graph = build_graph().compile(checkpointer=saver)
        graph.update_state({"configurable": {"thread_id": "t1"}},
                           {"task": "add two numbers", "tests": "assert 1", "form": "module", "status": "running"},
                           as_node="prepare")
        assert graph.get_state({"configurable": {"thread_id": "t1"}}).next == ("attempt",)
    listed = _probe(tmp_path, "threads", "--json", "--checkpointer", str(db))
    assert listed["code"] == 0 and not HEAVY & set(listed["loaded"])
    assert [(t["thread_id"], t["status"], t["task"]) for t in json.loads(listed["out"])] == [
        ("t1", "unfinished", "add two numbers")]
    shown = _probe(tmp_path, "show", "t1", "--json", "--checkpointer", str(db))
    assert shown["code"] == 0 and not HEAVY & set(shown["loaded"])
    assert json.loads(shown["out"])["status"] == "unfinished"
