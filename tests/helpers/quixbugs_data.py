"""The QuixBugs data for the tests that need it: found where the bench finds it
($CODEHEAL_QUIXBUGS_DIR, else ../shared/data/quixbugs beside the clone: codeheal_bench.quixbugs), else those tests are
skipped with a reason that says how to get it. CI exports the variable and fails on the skip."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeheal_bench.quixbugs import quixbugs_dir
from codeheal.errors import ConfigError

SKIP_REASON = "QuixBugs data not found"
"""The start of the skip reason; .ci/run fails when it appears."""


def quixbugs_or_skip() -> Path:
    """The QuixBugs folder; skips the calling test (or module) when there is none."""
    try:
        return quixbugs_dir()
    except ConfigError as exc:
        pytest.skip(f"{SKIP_REASON}: {exc}", allow_module_level=True)
