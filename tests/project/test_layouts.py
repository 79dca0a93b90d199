"""Real project layouts heal end to end through the CLI (scripted model): the copy stands at the
project's own path in the sandbox, in the project's own environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from layouts import (
    SETUPTOOLS_PYPROJECT, WC_BUG, WC_FIX, WC_TEST, build_venv, hatch_editable, heal, pip_install, tree, write,
)
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main

VENV_TEST = ".venv/bin/python -m pytest -q"


def src_project(root: Path) -> Path:
    return write(root, {"pyproject.toml": SETUPTOOLS_PYPROJECT, "src/wc/__init__.py": "from .core import count_words\n",
                        "src/wc/core.py": WC_BUG, "tests/test_wc.py": WC_TEST})


@pytest.fixture(scope="module")
def setuptools_editable(tmp_path_factory) -> Path:
    root = src_project(tmp_path_factory.mktemp("setuptools-editable") / "wc")
    build_venv(root / ".venv", setuptools=True)
    pip_install(root / ".venv", "-e", str(root))
    return root


def test_src_layout_editable_setuptools_heals_at_its_own_path(setuptools_editable: Path, tmp_path, capsys) -> None:
    before = tree(setuptools_editable)
    code, out, err, calls = heal(capsys, tmp_path, setuptools_editable, VENV_TEST, {"src/wc/core.py": WC_FIX})
    assert code == 0, err
    assert "+    return len(text.split())" in out and calls == 2
    assert tree(setuptools_editable) == before  # the host's folder is only read


def test_src_layout_editable_hatchling_heals(tmp_path: Path, capsys) -> None:
    root = src_project(tmp_path / "wc")
    hatch_editable(build_venv(root / ".venv"), "wc", root / "src")
    code, out, err, _ = heal(capsys, tmp_path, root, VENV_TEST, {"src/wc/core.py": WC_FIX})
    assert code == 0, err


def test_a_non_editable_install_of_the_project_stops_before_any_model_call(tmp_path: Path, capsys) -> None:
    root = src_project(tmp_path / "wc")
    build_venv(root / ".venv", setuptools=True)
    pip_install(root / ".venv", str(root))
    code, _, err, calls = heal(capsys, tmp_path, root, VENV_TEST, {"src/wc/core.py": WC_FIX})
    assert (code, calls) == (2, 0)
    assert "site-packages/wc is an installed copy of the project's own package wc" in " ".join(err.split())
    assert "-m pip install -e" in err


CKS_BUG = "def checksum(data):\n    return sum(data) % 255\n"
CKS_FIX = "def checksum(data):\n    return sum(data) % 256\n"
BLOB = bytes(range(200)) * 4 + b"\0\xff"


def test_binary_fixtures_package_data_and_empty_folders_reach_the_sandbox_but_never_the_model(
    tmp_path: Path, capsys
) -> None:
    root = write(tmp_path / "cks", {
        "cks/__init__.py": CKS_BUG,
        "cks/table.bin": BLOB,
        "tests/data.bin": BLOB,
        "tests/test_cks.py": (
            "from importlib.resources import files\nfrom pathlib import Path\n\nfrom cks import checksum\n\n\n"
            "def test_fixture_read_by_path():\n    data = (Path(__file__).parent / 'data.bin').read_bytes()\n"
            "    assert checksum(data) == sum(data) % 256\n\n\n"
            "def test_package_data():\n    assert files('cks').joinpath('table.bin').read_bytes()[-2:] == b'\\0\\xff'\n\n\n"
            "def test_empty_folder_is_there():\n    assert (Path(__file__).parent.parent / 'out').is_dir()\n"),
    })
    (root / "out").mkdir()
    reply = f"```python\n# cks/__init__.py\n{CKS_FIX}```\n"
    with ScriptedServer(lambda body: reply if is_fix_actor(body["messages"]) else "Fix the code.") as server:
        code = main(["fix", str(root), "--test", "python -m pytest -q", "--model", "scripted", "--base-url", server.url,
                     "--mutants", "0", "--checkpointer", str(tmp_path / "checkpoints.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "attempt 1: failed, 2 of 3 passed" in err  # only the defect fails: every file the tests read is there
    assert out.count("\n+ ") == 1 and "table.bin" not in out and "data.bin" not in out
    assert "table.bin" not in json.dumps(server.requests) and "\\u00ff" not in json.dumps(server.requests)


def test_a_misspelled_re_export_heals_with_the_lint_stage_on(tmp_path: Path, capsys) -> None:
    root = write(tmp_path / "stats", {
        "stats/__init__.py": "from .core import averge\n",
        "stats/core.py": "def average(xs):\n    return sum(xs) / len(xs)\n",
        "tests/test_stats.py": "from stats import average\n\n\ndef test_average():\n    assert average([1, 2, 3]) == 2\n",
    })
    code, out, err, _ = heal(capsys, tmp_path, root, "python -m pytest -q",
                             {"stats/__init__.py": "from .core import average\n"})
    assert code == 0, err
    assert "+from .core import average" in out and "F401" not in err
