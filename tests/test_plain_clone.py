"""A plain clone, with nothing beside it, collects the whole suite: tests needing data that only
the project's CI has skip with a reason instead of failing to collect."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from quixbugs_data import SKIP_REASON

from codeheal_bench.quixbugs import DATA_ENV, UPSTREAM

ROOT = Path(__file__).resolve().parent.parent


def test_a_clone_with_nothing_beside_it_collects_the_suite(tmp_path: Path) -> None:
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    clone = tmp_path / "codeheal"
    subprocess.run(["git", "clone", "-q", "--shared", "--no-checkout", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", head], cwd=clone, check=True)
    assert not (tmp_path / "shared").exists() and sorted(p.name for p in tmp_path.iterdir()) == ["codeheal"]
    env = {k: v for k, v in os.environ.items() if k != DATA_ENV and not k.startswith("PYTEST_")}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-rs", "-p", "no:cacheprovider"],
        cwd=clone, env=env, capture_output=True, text=True, timeout=240,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    summary = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"\d+ tests collected in [\d.]+s", summary), summary
    assert int(summary.split()[0]) > 300, summary
    assert f"{SKIP_REASON}: no QuixBugs data at {tmp_path}" in run.stdout, "the clone's own codeheal looked beside it"
    assert "--data DIR" in run.stdout and DATA_ENV in run.stdout and UPSTREAM in run.stdout
