"""The pre-commit hook manifest codeheal offers is valid, and runs `codeheal fix` by hand only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

MANIFEST = Path(__file__).parents[2] / ".pre-commit-hooks.yaml"


def test_manifest_is_valid() -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extra")
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_hook_runs_codeheal_fix_in_the_manual_stage() -> None:
    (hook,) = yaml.safe_load(MANIFEST.read_text())
    assert hook["id"] == "codeheal-fix"
    assert hook["entry"].startswith("codeheal fix ")
    assert hook["stages"] == ["manual"] and hook["pass_filenames"] is False


def test_the_system_hook_recipe_in_the_docs_is_a_valid_config(tmp_path: Path) -> None:
    """docs/fix.md's `language: system` recipe (the tool installed with pipx, no embedded model
    in the hook's environment) is a valid .pre-commit-config.yaml running plain `codeheal fix`."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extra")
    doc = (MANIFEST.parent / "docs" / "fix.md").read_text(encoding="utf-8")
    recipe = doc.split("<!-- checked by tests/project/test_precommit.py -->\n```yaml\n", 1)[1].split("```", 1)[0]
    (hook,) = yaml.safe_load(recipe)["repos"][0]["hooks"]
    assert hook["language"] == "system" and hook["entry"] == "codeheal fix ."
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(recipe)
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(config)], capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr
