"""Faults sorted right: a candidate that stops the report from starting is its own failed
attempt, which says so, never an infrastructure abort of the run (real bubblewrap sandbox, the
real graph, a scripted model); a linter stage that cannot read the project's configuration
says so instead of silently turning itself off."""

from __future__ import annotations

from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from doubles import scripted

from codeheal import build_graph, resolve
from codeheal.forms.project.lint import added_findings, ruff_binary

APP = "def setup():\n    return 1\n\n\nVALUE = setup()\n\n\ndef double(x):\n    return x + x + 1\n"
CONFTEST = "import app  # the project's code, imported before pytest's session starts\n"
TESTS = "from app import double\n\n\ndef test_double():\n    assert double(2) == 4\n"


def reply(body: str) -> str:
    return f"```python\n# app.py\ndef setup():\n{body}```\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text(APP)
    (root / "conftest.py").write_text(CONFTEST)
    (root / "tests" / "test_double.py").write_text(TESTS)
    return root


@pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")
@pytest.mark.parametrize("body", [
    "    import os\n    os._exit(0)\n",
    "    import os\n    os.execv('/bin/true', ['/bin/true'])\n",
    "    import os\n    for fd in range(3, 64):\n        try:\n            os.close(fd)\n        except OSError:\n"
    "            pass\n    return 1\n",
    "    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n",
    "    raise SystemExit(0)\n",
])
def test_a_candidate_that_stops_the_report_is_its_own_failed_attempt(project: Path, body: str) -> None:
    result = build_graph(llm=scripted(reply(body), reply(body))).compile().invoke(
        {"project": str(project), "test_command": "python -m pytest -q", "target": "app.py::setup"},
        context=resolve({"max_attempts": 2, "mutants": 0, "reflect": False, "tamper_scan": False, "lint": False,
                         "timeout_s": 30}).context,
    )
    assert result["status"] == "failed"
    last = result["history"][-1]
    assert not last.get("passed") and last["code"], last
    assert "not a pass" in last["summary"] or "ended early" in last["summary"] or "killed" in last["summary"], last


@pytest.mark.skipif(ruff_binary() is None, reason="ruff is not installed")
@pytest.mark.parametrize("config", [
    ("ruff.toml", "this is = = not toml ["),
    ("pyproject.toml", "[tool.ruff]\nline-length = 'wide'\n"),
    ("ruff.toml", "[lint]\nselect = ['NOPE999']\n"),
])
def test_a_linter_that_cannot_read_the_configuration_says_so(tmp_path: Path, config: tuple[str, str]) -> None:
    name, text = config
    (tmp_path / name).write_text(text)
    check = added_findings({"a.py": "x = 1\n"}, {"a.py": "import os\nx = 1\n"}, tmp_path)
    assert check.findings == [] and check.unavailable is not None
    assert "the linter stage did not run" in check.unavailable and "ruff" in check.unavailable


@pytest.mark.skipif(ruff_binary() is None, reason="ruff is not installed")
def test_a_readable_configuration_still_lints(tmp_path: Path) -> None:
    (tmp_path / "ruff.toml").write_text("[lint]\nselect = ['F']\n")
    check = added_findings({"a.py": "x = 1\n"}, {"a.py": "import os\nx = 1\n"}, tmp_path)
    assert check.unavailable is None and [f.code for f in check.findings] == ["F401"]
