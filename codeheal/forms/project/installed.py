"""An installed, non-editable copy of a project's own package in the environment its tests run
on: the tests would import it instead of the source, so no repair could ever be seen. Found
before any model call by reading the environment's site-packages (nothing of it is run)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from codeheal.errors import InputError

SOURCE_ROOTS = ("", "src/")
"""Where a project keeps its importable packages: at its top (flat layout) or under src/."""


def refuse_installed_copy(files: Iterable[str], root: Path, interpreter: str | None) -> None:
    """Raise InputError naming the installed copy, and how to install the project editable,
    when the virtualenv of `interpreter` holds a plain copy (a folder or module, not a `.pth`
    entry nor a link into the project) of a package the project's `files` define."""
    if interpreter is None:
        return
    venv = Path(interpreter).absolute().parent.parent
    if not (venv / "pyvenv.cfg").is_file():
        return  # not a virtualenv: its site-packages are the system's, not the project's
    for site in [*venv.glob("lib/python3*/site-packages"), venv / "Lib" / "site-packages"]:
        for name in sorted(project_packages(files)):
            for copy in (site / name, site / f"{name}.py"):
                if copy.exists() and not _leads_into(copy, root):
                    raise InputError(
                        f"{copy} is an installed copy of the project's own package {name}, which the tests "
                        f"would import instead of {root}'s source, so no repair would be seen. Install the "
                        f"project editable: `{interpreter} -m pip install -e {root}` (or `uv pip install -e .`)"
                    )


def project_packages(files: Iterable[str]) -> set[str]:
    """The top-level packages the project's files define (a folder with an `__init__.py` at the
    project's top or under src/), and the modules directly under src/."""
    names = set()
    for name in files:
        for prefix in SOURCE_ROOTS:
            if not name.startswith(prefix):
                continue
            parts = PurePosixPath(name[len(prefix):]).parts
            if len(parts) == 2 and parts[1] == "__init__.py" and parts[0].isidentifier():
                names.add(parts[0])
            elif prefix and len(parts) == 1 and parts[0].endswith(".py") and parts[0][:-3].isidentifier():
                names.add(parts[0][:-3])
    return names


def _leads_into(path: Path, root: Path) -> bool:
    """Whether `path` is a link into the project (flit's --symlink install: the copy then)."""
    return path.is_symlink() and Path(os.path.realpath(path)).is_relative_to(root)
