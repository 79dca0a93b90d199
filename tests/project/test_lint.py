"""The linter stage agrees with ruff's conventions: an import in `__init__.py` is a re-export, a
name in `__all__` is used, and an import corrected in place adds nothing; what a change really
adds is still refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeheal.forms.project.lint import added_findings, ruff_binary

pytestmark = pytest.mark.skipif(ruff_binary() is None, reason="ruff is not installed")


def added(tmp_path: Path, path: str, before: str, after: str) -> list[str]:
    check = added_findings({path: before}, {path: after}, tmp_path)
    assert check.unavailable is None
    return [f.code for f in check.findings]


def test_a_misspelled_re_export_corrected_in_init_adds_nothing(tmp_path: Path) -> None:
    assert added(tmp_path, "stats/__init__.py", "from .core import averge\n", "from .core import average\n") == []
    assert added(tmp_path, "stats/__init__.py", "", "from .core import average, median\n") == []


def test_names_in_all_count_as_used(tmp_path: Path) -> None:
    after = "from stats.core import average\n\n__all__ = ['average']\n"
    assert added(tmp_path, "stats/api.py", "from stats.core import averge\n\n__all__ = ['averge']\n", after) == []


def test_an_import_corrected_in_place_outside_init_adds_nothing(tmp_path: Path) -> None:
    assert added(tmp_path, "stats/api.py", "from stats.core import averge\n", "from stats.core import average\n") == []


def test_what_a_change_really_adds_is_still_refused(tmp_path: Path) -> None:
    assert "F401" in added(tmp_path, "stats/api.py", "x = 1\n", "import os\nx = 1\n")
    assert added(tmp_path, "stats/__init__.py", "x = 1\n", "x = undefined_name\n") == ["F821"]


def test_a_style_rule_the_project_selects_never_refuses_a_change(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.ruff]\nline-length = 20\n[tool.ruff.lint]\nselect = ["E", "F", "D"]\n')
    long_line = "def f(x):\n    return x + 1 + 2 + 3 + 4 + 5 + 6\n"
    assert added(tmp_path, "stats/api.py", "def f(x):\n    return x\n", long_line) == []
    assert added(tmp_path, "stats/api.py", "def f(x):\n    return x\n", "def f(x):\n    return y\n") == ["F821"]
