"""`codeheal solve` with the user's packages: --python (or the active virtualenv) gives the tests
its site-packages read-only; without one, tests that import what the sandbox lacks, and tests
that are no Python text or too large, stop before any model call (exit 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from project_venv import venv_with_pytest
from scripted_openai import ScriptedServer, is_actor

from codeheal.cli import main
from codeheal.forms.module.request import MAX_TESTS_BYTES

MEAN = "```python\ndef mean(xs):\n    return sum(xs) / len(xs)\n```"
NUMPY_TESTS = "import numpy as np\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == np.mean([1, 2, 3])\n"


def solve(capsys, tmp_path: Path, tests: str | bytes, *extra: str) -> tuple[int, str, int]:
    path = tmp_path / "tests.py"
    (path.write_bytes if isinstance(tests, bytes) else path.write_text)(tests)
    with ScriptedServer(lambda body: MEAN if is_actor(body["messages"]) else "Divide by the length.") as server:
        code = main(["solve", "the mean of a list", "--tests", str(path), "--model", "scripted", "--base-url",
                     server.url, "--checkpointer", str(tmp_path / "checkpoints.sqlite"), *extra])
    return code, " ".join(capsys.readouterr().err.split()), len(server.requests)


def test_a_third_party_import_stops_before_any_model_call_naming_the_module_and_the_way(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    code, err, calls = solve(capsys, tmp_path, NUMPY_TESTS)
    assert (code, calls) == (2, 0)
    assert "the tests import numpy, which the sandbox's Python does not have" in err and "--python PATH" in err


def test_python_gives_the_tests_the_environments_packages(tmp_path: Path, capsys, monkeypatch) -> None:
    pytest.importorskip("numpy")  # codeheal's own environment has it in development
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    code, err, calls = solve(capsys, tmp_path, NUMPY_TESTS, "--python", sys.executable)
    assert code == 0, err
    assert calls == 1


def test_the_active_virtualenv_is_checked_for_the_tests_imports(tmp_path: Path, capsys, monkeypatch) -> None:
    venv_with_pytest(tmp_path / "venv")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))
    code, err, calls = solve(capsys, tmp_path, NUMPY_TESTS)
    assert (code, calls) == (2, 0)
    assert "numpy, which" in err and "venv/bin/python'senvironmentdoesnothave" in err.replace(" ", "")


def test_tests_from_the_active_virtualenv_import_its_packages(tmp_path: Path, capsys, monkeypatch) -> None:
    site = venv_with_pytest(tmp_path / "venv")
    (site / "stats_helper.py").write_text("def expected(xs):\n    return sum(xs) / len(xs)\n")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))
    tests = "from stats_helper import expected\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == expected([1, 2, 3])\n"
    code, err, _ = solve(capsys, tmp_path, tests)
    assert code == 0, err


@pytest.mark.parametrize(("tests", "message"), [
    (b"\x00\xff\xfe" * 100, "is not UTF-8 text (byte 1): give a Python file"),
    ("def test_mean():\n    assert mean([2]) == 2\n" + "# padding\n" * (MAX_TESTS_BYTES // 10), "over the cap of 262,144"),
])
def test_bad_tests_input_is_an_input_error(tmp_path: Path, capsys, tests: str | bytes, message: str) -> None:
    code, err, calls = solve(capsys, tmp_path, tests)
    assert (code, calls) == (2, 0)
    assert message in err
