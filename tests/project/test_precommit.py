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
