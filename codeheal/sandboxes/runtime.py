"""What a job's interpreter may see: the standard library and pytest, nothing else.

The job runs the base interpreter behind the user's virtualenv with `-S` (no site-packages)
and PYTHONPATH naming only pytest and the distributions it requires. codeheal, the benchmark
data and every other package of the virtualenv stay out of reach; bubblewrap also hides the
virtualenv and the project directory from view (bwrap.py)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from dataclasses import dataclass, replace

from codeheal.errors import SandboxError

_SCRIPT = r"""
import importlib.metadata as md, json, re, sys, sysconfig
from packaging.requirements import Requirement

def closure(name, seen):
    dist = md.distribution(name)
    key = dist.metadata["Name"].lower().replace("_", "-")
    if key in seen:
        return
    seen[key] = dist
    for text in dist.requires or ():
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            closure(req.name, seen)

seen = {}
closure("pytest", seen)
tops = {}
for dist in seen.values():
    for file in dist.files or ():
        top = file.parts[0]
        if top.startswith("..") or top.endswith((".dist-info", ".egg-info", ".pth")) or top == "__pycache__":
            continue
        tops[top] = str(dist.locate_file(top))
print(json.dumps({
    "executable": getattr(sys, "_base_executable", sys.executable),
    "prefix": sys.prefix,
    "base_prefixes": sorted({sys.base_prefix, sys.base_exec_prefix, sysconfig.get_paths()["stdlib"]}),
    "packages": tops,
}))
"""


@dataclass(frozen=True)
class Runtime:
    """The interpreter a job runs and the only packages it may import."""

    executable: str
    """The base interpreter (a virtualenv's own python would add its site-packages)."""
    base_prefixes: tuple[str, ...]
    """Its installation: bound back read-only where bubblewrap hides a home directory."""
    venv: str | None
    """The virtualenv codeheal was started from, hidden inside bubblewrap; None if none."""
    packages: tuple[tuple[str, str], ...]
    """(top-level name, host path) of pytest and its requirements."""

    @property
    def site_dirs(self) -> tuple[str, ...]:
        """The host folders holding `packages` (what PYTHONPATH names without bubblewrap)."""
        return tuple(dict.fromkeys(os.path.dirname(path) for _, path in self.packages))


@functools.cache
def runtime_of(python: str) -> Runtime:
    """The Runtime behind `python` (asked once per interpreter); SandboxError when that
    interpreter has no pytest."""
    try:
        out = subprocess.run(
            [python, "-c", _SCRIPT], capture_output=True, text=True, timeout=60, check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        detail = getattr(exc, "stderr", "") or exc
        raise SandboxError(
            f"local sandbox: cannot find pytest for {python}: {str(detail).strip()[-300:]}; "
            "install pytest in the environment codeheal runs from"
        ) from exc
    found = json.loads(out)
    executable = os.path.realpath(found["executable"])
    prefixes = {os.path.realpath(p) for p in found["base_prefixes"]}
    prefixes.add(os.path.dirname(os.path.dirname(executable)))
    venv = os.path.realpath(found["prefix"])
    return Runtime(
        executable=executable,
        base_prefixes=tuple(sorted(prefixes)),
        venv=None if venv in prefixes else venv,
        packages=tuple(sorted((name, os.path.realpath(path)) for name, path in found["packages"].items())),
    )


@functools.cache
def project_runtime(python: str) -> Runtime:
    """A project's interpreter (`codeheal fix`: its virtualenv, or --python) as a Runtime with
    everything installed beside its pytest on the import path (read-only inside bubblewrap),
    so the project's imports and its pytest plugins work. The project form's addition to the
    stdlib-and-pytest runtime: the user's own environment, for the user's own tests."""
    base = runtime_of(python)
    entries = {
        name: os.path.join(folder, name)
        for folder in base.site_dirs
        for name in sorted(os.listdir(folder))
        if name != "__pycache__" and not name.endswith(".pth")
    }
    return replace(base, packages=tuple(sorted(entries.items())))
