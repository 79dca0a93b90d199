"""What the editor configures: the folders whose tests the server may run, and a test
command for projects whose pyproject.toml names none.

Opening a folder must not run its code, so the server runs a project's tests only inside a
folder the user listed in `trustedFolders` (initializationOptions, or the `codeheal` section
of workspace/didChangeConfiguration)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TEST_COMMAND = "python -m pytest -q"
"""The test command of a project that names none in [tool.codeheal.fix]."""
DEFAULT_DEBOUNCE_S = 0.5


@dataclass(frozen=True)
class ServerOptions:
    """The editor's settings for codeheal (initializationOptions, or the `codeheal` section of
    the workspace configuration)."""

    trusted_folders: tuple[Path, ...] = ()
    """Folders (and everything under them) whose tests may run."""
    test_command: str = DEFAULT_TEST_COMMAND
    """The test command where [tool.codeheal.fix] names none."""
    debounce_s: float = DEFAULT_DEBOUNCE_S
    """How long after a save the tests start; a later save within it starts them over."""

    def trusts(self, folder: Path) -> bool:
        """Whether `folder` is one of the trusted folders or lies inside one."""
        folder = folder.resolve()
        return any(folder == trusted or trusted in folder.parents for trusted in self.trusted_folders)


def options_of(raw: object) -> ServerOptions:
    """ServerOptions from the editor's JSON: `{"trustedFolders": [...], "testCommand": "...",
    "debounce": 0.5}`, or the same under a `codeheal` key; unknown keys and values of the
    wrong type are left at their defaults."""
    if not isinstance(raw, Mapping):
        return ServerOptions()
    if isinstance(raw.get("codeheal"), Mapping):
        raw = raw["codeheal"]
    folders = raw.get("trustedFolders")
    trusted = tuple(Path(f).expanduser().resolve() for f in folders if isinstance(f, str)) if isinstance(folders, list) else ()
    command = raw.get("testCommand")
    debounce = raw.get("debounce")
    return ServerOptions(
        trusted_folders=trusted,
        test_command=command if isinstance(command, str) and command.strip() else DEFAULT_TEST_COMMAND,
        debounce_s=float(debounce) if isinstance(debounce, (int, float)) and debounce >= 0 else DEFAULT_DEBOUNCE_S,
    )
