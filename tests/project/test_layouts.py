"""Real project layouts heal end to end through the CLI (scripted model): the copy stands at the
project's own path in the sandbox, in the project's own environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from layouts import (
    SETUPTOOLS_PYPROJECT, WC_BUG, WC_FIX, WC_TEST, build_venv, hatch_editable, heal, pip_install, tree, write,
)

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
