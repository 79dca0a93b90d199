"""How this codeheal was installed (pipx, uv tool, pip in a virtualenv, a clone with `make`,
pip outside any virtualenv), told from `sys.prefix` and the package's path, and where from (a
package index, a wheel or folder, a VCS URL: its distribution's direct_url.json), so that a
message names the remedy that works there and not one that cannot (`make system` to a pipx
user, pip under `uv tool`, which has none, `codeheal[local]` from an index that has no codeheal)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

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


def install_source(direct_url: str | None = None) -> str | None:
    """Where codeheal was installed from when not from a package index, as pip takes it back:
    the wheel, archive or folder's path, or a VCS URL (`git+https://...@COMMIT`); None from an
    index. Read from `direct_url` (the text of a direct_url.json, PEP 610; default: that of the
    installed codeheal)."""
    if direct_url is None:
        try:
            direct_url = importlib.metadata.distribution("codeheal").read_text("direct_url.json")
        except importlib.metadata.PackageNotFoundError:
            return None
    if not direct_url:
        return None
    data = json.loads(direct_url)
    url = str(data.get("url", ""))
    if vcs := data.get("vcs_info"):
        return f"{vcs['vcs']}+{url}@{vcs['commit_id']}"
    return unquote(urlsplit(url).path) if url.startswith("file:") else url or None


def codeheal_requirement(extra: str | None, source: str | None) -> str | None:
    """The requirement that installs codeheal (with `extra`) from where it came (`source`, as
    install_source says): `codeheal[extra]` from an index, else its wheel, folder or URL; None
    when the wheel or folder it came from is gone."""
    extras = f"[{extra}]" if extra else ""
    if source is None:
        return f"codeheal{extras}"
    if "://" in source:
        return f"codeheal{extras} @ {source}"
    return f"{source}{extras}" if Path(source).exists() else None


def extra_requirements(extra: str) -> list[str]:
    """The packages codeheal's `extra` adds (its Requires-Dist for that extra)."""
    marker = f'extra == "{extra}"'
    return [line.split(";", 1)[0].strip() for line in importlib.metadata.requires("codeheal") or []
            if marker in line.replace("'", '"')]


def extra_command(extra: str, method: Method | None = None) -> str:
    """The command that gives this installation codeheal's `extra` (e.g. "local", "lsp"), from
    where codeheal came (install_source); where that is gone, the extra's packages alone."""
    method = method or install_method()
    if method == "clone":
        return f"{_installer()} -e {shlex.quote(f'{SOURCE}[{extra}]')}"
    wanted = codeheal_requirement(extra, install_source())
    if wanted is None:
        return package_command(" ".join(map(shlex.quote, extra_requirements(extra))), method)
    return {
        "pipx": f"pipx install --force {shlex.quote(wanted)}",
        "uv tool": f"uv tool install --force {shlex.quote(wanted)}",
        "venv": f"{_installer()} {shlex.quote(wanted)}",
        "pip": f"pip install {shlex.quote(wanted)}",
    }[method]


def package_command(requirement: str, method: Method | None = None) -> str:
    """The command that adds the package `requirement` to this installation's environment."""
    method = method or install_method()
    if method == "uv tool":
        tool = codeheal_requirement(None, install_source())
        if tool is None:  # the tool's source is gone: uv's installer, aimed at the tool's own Python
            return f"uv pip install --python {shlex.quote(sys.executable)} {requirement}"
        return f"uv tool install --force {shlex.quote(tool)} --with {requirement}"
    return {
        "pipx": f"pipx inject codeheal {requirement}",
        "clone": f"{_installer()} {requirement}",
        "venv": f"{_installer()} {requirement}",
        "pip": f"pip install {requirement}",
    }[method]


def _installer() -> str:
    """This interpreter's installer (package_installer) as a command line; its pip when it has none."""
    return shlex.join(package_installer() or [sys.executable, "-m", "pip", "install"])


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

