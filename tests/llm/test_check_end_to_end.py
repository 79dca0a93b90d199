"""A type error healed by the embedded model from the CLI under `fix --check` (mypy in the
project's environment): the screen has no cheap repair for it (`--mutants 0` keeps it out
anyway), so the model's change is what mypy judges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_venv import venv_with_pytest

pytestmark = pytest.mark.timeout(900)

LABELS = '''"""Labels."""


def describe(count: int) -> str:
    """A label for `count` items."""
    return "items: " + count
'''


@pytest.mark.model
def test_the_embedded_model_heals_an_int_added_to_a_str_until_mypy_agrees(tmp_path: Path) -> None:
    project = tmp_path / "labels"
    (project / "shop").mkdir(parents=True)
    (project / "shop" / "__init__.py").write_text("")
    (project / "shop" / "labels.py").write_text(LABELS)
    venv_with_pytest(tmp_path / "venv", "mypy")
    done = subprocess.run(
        [sys.executable, "-m", "codeheal.cli", "fix", str(project), "--check", "python -m mypy shop", "--python",
         str(tmp_path / "venv" / "bin" / "python"), "--max-attempts", "4", "--mutants", "0", "--json"],
        capture_output=True, text=True, timeout=900, env={**os.environ, "XDG_DATA_HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [c["file"] for c in result["changed"]] == ["shop/labels.py"]
    assert "-    return \"items: \" + count\n" in result["diff"]
