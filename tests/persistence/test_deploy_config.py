"""deploy/langgraph.json: valid for the LangGraph CLI, and its graph imports and compiles."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from langgraph.pregel import Pregel

from codeheal.context import Context

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "langgraph.json"


def test_the_langgraph_cli_validates_the_config() -> None:
    cli = Path(sys.executable).with_name("langgraph")
    env = {**os.environ, "LANGGRAPH_CLI_NO_ANALYTICS": "1"}
    done = subprocess.run([str(cli), "validate", "-c", str(CONFIG)], capture_output=True, text=True,
                          env=env, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "is valid" in done.stdout and "warning" not in (done.stdout + done.stderr).lower()


def test_the_config_serves_the_codeheal_package_graph() -> None:
    config = json.loads(CONFIG.read_text())
    [dependency] = config["dependencies"]
    pyproject = tomllib.loads((CONFIG.parent / dependency / "pyproject.toml").read_text())
    assert pyproject["project"]["name"] == "codeheal"
    for path in config["graphs"].values():
        module, _, attribute = path.partition(":")
        graph = getattr(importlib.import_module(module), attribute)
        assert isinstance(graph, Pregel)
        assert graph.checkpointer is None  # the server brings its own (Postgres)
        assert {"prepare", "attempt:actor", "attempt:evaluator", "reflector"} <= set(graph.get_graph(xray=True).nodes)
    settings = {k.removeprefix("CODEHEAL_").lower(): v for k, v in config["env"].items()}
    assert Context(**settings).sandbox == "e2b"
