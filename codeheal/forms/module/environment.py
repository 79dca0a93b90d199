"""The Python a module-form run's tests run on, and the imports of the tests it cannot give.

By default the sandbox gives the tests the standard library and pytest alone. `--python PATH`
(state's `python`), or the active virtualenv when it is not codeheal's own, runs them on that
interpreter with its site-packages visible read-only, so the user's packages import. Without
one, a test module importing a third-party module is refused before any model call: no code
the model writes could make it import."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from codeheal.errors import InputError
from codeheal.evaluation.checks import top_level_imports
from codeheal.sandboxes.runtime import not_an_interpreter, runtime_of

OWN_MODULES = frozenset({"solution"})
PATCHING_PTH = frozenset({"distutils-precedence.pth", "_virtualenv.pth"})
"""`.pth` files that run code only to patch the interpreter (setuptools', virtualenv's): they add no module."""
"""What the sandbox's workspace itself gives the tests to import."""


def tests_python(python: str | None, active_venv: str | None) -> str | None:
    """The interpreter the tests run on: `python` if given, else the active virtualenv's
    (`active_venv`, $VIRTUAL_ENV) when it is not the one codeheal runs from; None: the
    sandbox's own (the standard library and pytest). InputError for a path that is not a
    native Python executable."""
    if python:
        chosen, source = Path(python).absolute(), "--python"
    elif active_venv and Path(active_venv).resolve() != Path(sys.prefix).resolve():
        chosen, source = Path(active_venv).absolute() / "bin" / "python", "$VIRTUAL_ENV"
    else:
        return None
    if reason := not_an_interpreter(str(chosen)):
        raise InputError(f"{source} {reason}; give the path of a real Python interpreter with --python")
    return str(chosen)


def refuse_missing_imports(tests: ast.Module, python: str | None) -> None:
    """InputError naming the first module the tests import at their top that the environment
    cannot give, and how to give the tests one that has it. Without `python`: the sandbox's own
    Python (the standard library, pytest and what it requires, and solution). With one: what
    its virtualenv's site-packages hold, read without running anything; not checked where
    that cannot be read so (no virtualenv, system site-packages on, a `.pth` file that runs code)."""
    names = top_level_imports(tests)
    if python is None:
        importable = OWN_MODULES | set(sys.stdlib_module_names) | {name for name, _ in runtime_of(sys.executable).packages}
        missing = [name for name in names if name not in importable]
        where = "the sandbox's Python does not have (it gives the standard library and pytest only)"
    else:
        folders = _site_folders(Path(python))
        if folders is None:
            return
        missing = [name for name in names if name not in OWN_MODULES | set(sys.stdlib_module_names)
                   and not any(_holds(folder, name) for folder in folders)]
        where = f"{python}'s environment does not have"
    if missing:
        raise InputError(
            f"the tests import {missing[0]}, which {where}: run with --python PATH, an interpreter whose "
            f"environment has {missing[0]} and pytest (e.g. .venv/bin/python), or with that virtualenv active"
        )


def _site_folders(python: Path) -> list[Path] | None:
    """The folders a virtualenv's interpreter imports from (site-packages and the folders its
    `.pth` files name); None when they cannot be known without running it."""
    venv = python.parent.parent
    config = venv / "pyvenv.cfg"
    if not config.is_file() or "include-system-site-packages = true" in config.read_text(errors="replace"):
        return None
    folders = list(venv.glob("lib/python3*/site-packages"))
    for pth in [pth for folder in folders for pth in folder.glob("*.pth") if pth.name not in PATCHING_PTH]:
        for line in pth.read_text(errors="replace").splitlines():
            if line.startswith(("import ", "import\t")):
                return None
            if line.strip() and not line.startswith("#"):
                folders.append(pth.parent / line.strip())
    return folders


def _holds(folder: Path, name: str) -> bool:
    """Whether `folder` holds the top-level module `name` (a package, a module, an extension)."""
    return (folder / name).is_dir() or (folder / f"{name}.py").is_file() or any(folder.glob(f"{name}.*.so"))
