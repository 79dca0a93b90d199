"""What a job's interpreter may see: the standard library, pytest and hypothesis, nothing else.

On codeheal's own interpreter the job runs the base interpreter behind the virtualenv with
`-S` (no site-packages) and PYTHONPATH naming only pytest, hypothesis (when installed, as
codeheal's dependencies have it) and the distributions they require.
codeheal, the benchmark data and every other package of the virtualenv stay out of reach;
bubblewrap does not bind that virtualenv (bwrap.py).

A project's interpreter (`codeheal fix`, `solve --python`) is the user's, not codeheal's: it is
checked without running it (a native executable, not a script) and asked what it has only
inside the sandbox (`discovery_runtime`, DISCOVERY_ARGS); what it answers is checked against its
installation before the host binds any path of it into later jobs, which then run it with its
own site-packages (`Runtime.site`)."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from dataclasses import dataclass

from codeheal.errors import SandboxError

_SCRIPT = r"""
import importlib.metadata as md, json, site, sys, sysconfig
site.main()  # the job starts with -S: the interpreter's own site-packages, on purpose here
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
try:
    closure("hypothesis", seen)  # property-based tests: there by default beside pytest when installed
except md.PackageNotFoundError:
    pass
tops = {}
for dist in seen.values():
    for file in dist.files or ():
        top = file.parts[0]
        if top.startswith("..") or top.endswith((".dist-info", ".egg-info", ".pth")) or top == "__pycache__":
            continue
        tops[top] = str(dist.locate_file(top))
print(json.dumps({
    "executable": getattr(sys, "_base_executable", sys.executable),
    "base_prefixes": sorted({sys.base_prefix, sys.base_exec_prefix, sysconfig.get_paths()["stdlib"]}),
    "packages": tops,
}))
"""
DISCOVERY_ARGS = ("-I", "-c", _SCRIPT)
"""The Python arguments of the job that asks an interpreter what it has (in the sandbox)."""
ELF_MAGIC = b"\x7fELF"


@dataclass(frozen=True)
class Runtime:
    """The interpreter a job runs and the only packages it may import."""

    executable: str
    """The base interpreter (a virtualenv's own python would add its site-packages)."""
    base_prefixes: tuple[str, ...]
    """Its installation: bound back read-only where bubblewrap hides a home directory."""
    packages: tuple[tuple[str, str], ...]
    """(top-level name, host path) of pytest, hypothesis and their requirements."""
    site: bool = False
    """Run with the interpreter's own site-packages (a project's environment, `.pth` files and
    editable installs included) instead of `-S` and `packages` alone."""

    @property
    def site_dirs(self) -> tuple[str, ...]:
        """The host folders holding `packages` (what PYTHONPATH names without bubblewrap)."""
        return tuple(dict.fromkeys(os.path.dirname(path) for _, path in self.packages))


def not_an_interpreter(python: str) -> str | None:
    """Why `python` cannot be a project's interpreter, found without running it; None if it
    can. Only a native executable is accepted: a script there would run whatever it says."""
    real = os.path.realpath(python)
    if not os.path.isfile(real) or not os.access(real, os.X_OK):
        return f"{python}: no executable file there"
    with open(real, "rb") as file:
        if file.read(4) != ELF_MAGIC:
            return f"{python}: not a Python interpreter (not a native executable; a script there would run as it is)"
    return None


@functools.cache
def runtime_of(python: str) -> Runtime:
    """The Runtime behind codeheal's own interpreter `python` (asked once, isolated: `-I`,
    an empty environment); SandboxError when that interpreter has no pytest. A project's
    interpreter is asked in the sandbox instead (`discovery_runtime`, `project_runtime`)."""
    try:
        out = subprocess.run(
            [python, *DISCOVERY_ARGS], capture_output=True, text=True, timeout=60, check=True, env={},
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
    prefixes.add(_installation(executable))
    return Runtime(
        executable=executable,
        base_prefixes=tuple(sorted(prefixes)),
        packages=tuple(sorted((name, os.path.realpath(path)) for name, path in found["packages"].items())),
    )


def discovery_runtime(python: str) -> Runtime:
    """The Runtime the discovery job of a project's interpreter runs on: that interpreter as
    given (its virtualenv is found through its path) with its installation and its virtualenv
    visible, read-only. SandboxError when `python` is not a native executable."""
    if reason := not_an_interpreter(python):
        raise SandboxError(f"local sandbox: {reason}; give the path of a real Python interpreter")
    return Runtime(executable=python, base_prefixes=_roots(python), packages=())


def project_runtime(python: str, discovered: str) -> Runtime:
    """A project's interpreter as a Runtime that runs with its own site-packages (read-only
    inside bubblewrap: its installation and its virtualenv, at their own paths), so the
    project's imports, its editable installs (`.pth` files, which lead to the copy at the
    project's own path) and its pytest plugins work: the user's own environment, for the
    user's own tests. `discovered` is what the discovery job printed, and untrusted: every
    path in it must lie in the interpreter's installation or its virtualenv (SandboxError
    otherwise), and the interpreter run is the one checked on the host, whatever the job said.
    `packages` (what lies beside its pytest) serve basic isolation's import path only."""
    roots = _roots(python)
    try:
        found = json.loads(discovered.strip().splitlines()[-1])
        reported = [*found["base_prefixes"], *found["packages"].values()]
    except (IndexError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise SandboxError(f"local sandbox: cannot find pytest for {python}: unreadable answer ({exc})") from None
    outside = [path for path in map(str, reported) if not any(_within(os.path.realpath(path), r) for r in roots)]
    if outside:
        raise SandboxError(
            f"local sandbox: {python} names paths outside its installation and virtualenv: {', '.join(outside[:3])}"
        )
    site_dirs = dict.fromkeys(os.path.dirname(os.path.realpath(p)) for p in found["packages"].values())
    entries = {
        name: path
        for folder in site_dirs
        for name in sorted(os.listdir(folder))
        if name != "__pycache__" and not name.endswith(".pth")
        and any(_within(path := os.path.realpath(os.path.join(folder, name)), r) for r in roots)
    }
    return Runtime(
        executable=os.path.abspath(python),  # as named: a virtualenv's python finds its pyvenv.cfg beside it
        base_prefixes=roots,
        packages=tuple(sorted(entries.items())),
        site=True,
    )


def _roots(python: str) -> tuple[str, ...]:
    """The interpreter's installation, and the virtualenv its path lies in (if any)."""
    roots = {_installation(os.path.realpath(python))}
    venv = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    if os.path.isfile(os.path.join(venv, "pyvenv.cfg")):
        roots.add(os.path.realpath(venv))
    return tuple(sorted(roots))


def _installation(executable: str) -> str:
    """The prefix an interpreter is installed under (`PREFIX/bin/python3.12`)."""
    return os.path.dirname(os.path.dirname(executable))


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")
