"""How this codeheal was installed (pipx, uv tool, pip in a virtualenv, a clone with `make`,
pip outside any virtualenv), told from `sys.prefix` and the package's path, so that a message
names the remedy that works there and not one that cannot (`make system` to a pipx user, pip
under `uv tool`, which has none)."""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import sys
from pathlib import Path
from typing import Literal

Method = Literal["pipx", "uv tool", "clone", "venv", "pip"]
SOURCE = Path(__file__).resolve().parent.parent
"""Where the codeheal package sits: a clone's root when it is installed editable."""


def install_method(prefix: str | None = None, source: Path = SOURCE) -> Method:
    """How codeheal was installed: "pipx" (a pipx venv: pipx_metadata.json), "uv tool" (a uv
    tool environment: uv-receipt.toml), "clone" (run from a checkout with the project's
    Makefile), "venv" (pip in a virtualenv) or "pip" (outside any)."""
    root = Path(prefix if prefix is not None else sys.prefix)
    if (root / "pipx_metadata.json").is_file():
        return "pipx"
    if (root / "uv-receipt.toml").is_file():
        return "uv tool"
    if (source / "Makefile").is_file() and (source / "pyproject.toml").is_file():
        return "clone"
    if (root / "pyvenv.cfg").is_file():
        return "venv"
    return "pip"


def extra_command(extra: str, method: Method | None = None) -> str:
    """The command that gives this installation codeheal's `extra` (e.g. "local", "lsp")."""
    method = method or install_method()
    return {
        "pipx": f"pipx install --force 'codeheal[{extra}]'",
        "uv tool": f"uv tool install --force 'codeheal[{extra}]'",
        "clone": f"{shlex.quote(sys.executable)} -m pip install -e '{SOURCE}[{extra}]'",
        "venv": f"{shlex.quote(sys.executable)} -m pip install 'codeheal[{extra}]'",
        "pip": f"pip install 'codeheal[{extra}]'",
    }[method]


def package_command(requirement: str, method: Method | None = None) -> str:
    """The command that adds the package `requirement` to this installation's environment."""
    method = method or install_method()
    return {
        "pipx": f"pipx inject codeheal {requirement}",
        "uv tool": f"uv tool install --force codeheal --with {requirement}",
        "clone": f"{shlex.quote(sys.executable)} -m pip install {requirement}",
        "venv": f"{shlex.quote(sys.executable)} -m pip install {requirement}",
        "pip": f"pip install {requirement}",
    }[method]


def system_package_hint(package: str, method: Method | None = None) -> str:
    """How to install the system package `package` (Debian's and Fedora's name alike), and
    `make system` where codeheal runs from a clone, whose Makefile has that target."""
    clone = ", or run `make system` as root in the clone" if (method or install_method()) == "clone" else ""
    return f"install {package} (Debian/Ubuntu: 'sudo apt-get install {package}'; Fedora: 'sudo dnf install {package}'){clone}"


def installer_name(installer: list[str]) -> str:
    """What to call `installer` (from package_installer) in a message: "pip" or "uv"."""
    return "uv" if installer[1:2] == ["pip"] else "pip"


def package_installer() -> list[str] | None:
    """The command that installs packages into this interpreter: its pip, else uv's installer
    aimed at it (a `uv tool` environment has no pip); None when there is neither."""
    if importlib.util.find_spec("pip") is not None:
        return [sys.executable, "-m", "pip", "install"]
    if uv := shutil.which("uv"):
        return [uv, "pip", "install", "--python", sys.executable]
    return None

