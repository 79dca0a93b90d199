"""The `codeheal` command end to end with the real embedded model (no fakes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ADD_TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\n"


def codeheal(*args: str, data_home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    return subprocess.run(
        [sys.executable, "-m", "codeheal.cli", *args],
        capture_output=True, text=True, env=env, timeout=600,
    )


@pytest.mark.model
def test_the_cli_solves_an_easy_task_offline_and_prints_json(tmp_path: Path) -> None:
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    out = tmp_path / "solution.py"
    done = codeheal(
        "solve", "Write add(a, b) that returns the sum of two numbers.",
        "--tests", str(tests), "--max-attempts", "3", "--json", "--out", str(out),
        data_home=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert set(result) >= {"code", "status", "attempts", "reflections", "history", "thread"}
    assert result["status"] == "passed" and 1 <= result["attempts"] <= 3
    assert "def add" in result["code"] and out.read_text().strip() == result["code"].strip()
    assert "passed, 2 of 2 checks" in done.stderr  # progress went to stderr
    spent = result["totals"]["breakdown"]
    assert spent["model_server"] in ("started", "warm") and spent["model_start_seconds"] >= 0
    assert (tmp_path / "codeheal" / "checkpoints.sqlite").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["", "--tests", "{tests}"], "the task is empty"),
        (["add", "--tests", "{missing}"], "cannot read the tests file"),
        (["add", "--tests", "{broken}"], "tests.py line 1"),
        (["add", "--tests", "{tests}", "--entry-point", "mul"], "entry_point 'mul' is never used"),
        (["add", "--tests", "{tests}", "--max-attempts", "0"], "max_attempts must be"),
    ],
)
def test_bad_input_exits_2_with_a_message_and_no_model(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "tests.py").write_text(ADD_TESTS)
    (tmp_path / "broken.py").write_text("assert add(2, 3) ==\n")
    paths = {"tests": tmp_path / "tests.py", "missing": tmp_path / "nope.py", "broken": tmp_path / "broken.py"}
    done = codeheal("solve", *[a.format(**paths) for a in args], data_home=tmp_path)
    assert done.returncode == 2
    assert message in done.stderr
    assert done.stdout == ""
