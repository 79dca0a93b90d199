"""A project virtualenv of its own that really holds pytest (copied in, not reached through a
.pth file pointing elsewhere: the sandbox binds only what lies in the interpreter's installation
and virtualenv)."""

from __future__ import annotations

import importlib.metadata as md
import shutil
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement


def venv_with_pytest(venv: Path, *others: str) -> Path:
    """Make a virtualenv at `venv` holding pytest, the distributions named in `others` (e.g.
    mypy) and what they require; its site-packages."""
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    for dist in pytest_closure(*others):
        for top in {file.parts[0] for file in dist.files or ()} - {"..", "__pycache__"}:
            source = Path(dist.locate_file(top))
            (shutil.copytree if source.is_dir() else shutil.copy)(source, site / top)
    return site


def pytest_closure(*others: str) -> list[md.Distribution]:
    """pytest (and `others`) and the distributions they require here (their files, metadata
    included)."""
    seen: dict[str, md.Distribution] = {}
    pending = ["pytest", *others]
    while pending:
        dist = md.distribution(pending.pop())
        if dist.metadata["Name"].lower() in seen:
            continue
        seen[dist.metadata["Name"].lower()] = dist
        for requirement in map(Requirement, dist.requires or ()):
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                pending.append(requirement.name)
    return list(seen.values())
