"""`[tool.codeheal]` in a project's pyproject.toml: the same settings as the command-line
flags, so a hook or a CI line becomes plain `codeheal fix`.

```toml
[tool.codeheal]          # run settings, for every command
model = "qwen2.5-coder:7b"
base-url = "http://localhost:11434/v1"
max-attempts = 4

[tool.codeheal.fix]      # `codeheal fix` only: its own flags, and run settings for it
test = "python -m pytest -q tests/unit"
timeout = 30
```

Keys are the flags' names without the dashes. Layers, each over the one before: the defaults,
the CODEHEAL_<FIELD> environment, this file, the flags typed."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Literal, get_args, get_origin, get_type_hints

from codeheal.context import Context, value_kind
from codeheal.errors import ConfigError

RUN_FLAGS = {
    # Context field: flag. Fields not named here get --field-name; review_on_exhaustion has
    # no flag: a paused CLI run could not be answered.
    "max_attempts": "--max-attempts",
    "timeout_s": "--timeout",
    "e2b_lifetime_s": "--e2b-lifetime",
}
NO_FLAG = {"review_on_exhaustion"}
FIX_KEYS = {"test": "test_command", "task": "task", "target": "target", "python": "python"}
"""`[tool.codeheal.fix]` keys of fix's own flags -> the argument each fills."""


def run_flag(name: str) -> str:
    """The flag of Context field `name`, e.g. --max-attempts."""
    return RUN_FLAGS.get(name, "--" + name.replace("_", "-"))


def flag_fields() -> dict[str, str]:
    """Config key (the flag without its dashes) -> Context field, for every field with a flag."""
    return {run_flag(f.name)[2:]: f.name for f in fields(Context) if f.name not in NO_FLAG}


@dataclass(frozen=True)
class ProjectConfig:
    """What a pyproject.toml's `[tool.codeheal]` table sets."""

    path: Path | None
    """The file it came from; None when there was none (or it has no table)."""
    settings: dict[str, object] = field(default_factory=dict)
    """Context fields -> values."""
    fix: dict[str, str] = field(default_factory=dict)
    """fix's own arguments (test_command, task, target, python) -> values."""


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` or a folder above it."""
    for folder in (start.absolute(), *start.absolute().parents):
        if (folder / "pyproject.toml").is_file():
            return folder / "pyproject.toml"
    return None


def load_config(start: Path, *, command: Literal["solve", "fix"]) -> ProjectConfig:
    """The `[tool.codeheal]` settings of the pyproject.toml nearest `start`, with the `fix`
    sub-table's over them for `codeheal fix`. ConfigError for a file that does not parse, a key
    that is no flag, or a value of the wrong type, naming the file and the key."""
    path = find_pyproject(start) if start.is_dir() else None  # a missing folder: load_project says so
    if path is None:
        return ProjectConfig(None)
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("codeheal")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read it: {exc}") from None
    if table is None:
        return ProjectConfig(None)
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.codeheal] must be a table")
    fix_table = table.get("fix", {})
    if not isinstance(fix_table, dict):
        raise ConfigError(f"{path}: [tool.codeheal.fix] must be a table")
    settings = _settings(path, "tool.codeheal", {k: v for k, v in table.items() if k != "fix"})
    fix: dict[str, str] = {}
    if command == "fix":
        own = {k: v for k, v in fix_table.items() if k in FIX_KEYS}
        for key, value in own.items():
            if not isinstance(value, str):
                raise ConfigError(f"{path}: [tool.codeheal.fix] {key} must be a string, got {value!r}")
            fix[FIX_KEYS[key]] = value
        settings |= _settings(path, "tool.codeheal.fix", {k: v for k, v in fix_table.items() if k not in FIX_KEYS})
    return ProjectConfig(path, settings, fix)


def _settings(path: Path, where: str, table: dict[str, object]) -> dict[str, object]:
    known = flag_fields()
    hints = get_type_hints(Context)
    settings: dict[str, object] = {}
    for key, value in table.items():
        name = known.get(key)
        if name is None:
            hint = "" if where.endswith("fix") else "; fix's own keys (test, task, target, python) go in [tool.codeheal.fix]"
            raise ConfigError(f"{path}: [{where}] {key!r} is not a codeheal setting (the flags' names without dashes){hint}")
        settings[name] = _checked(path, where, key, value, name, hints[name])
    return settings


def _checked(path: Path, where: str, key: str, value: object, name: str, hint: object) -> object:
    kind = value_kind(name)
    if get_origin(hint) is Literal and value not in get_args(hint):
        raise ConfigError(f"{path}: [{where}] {key} must be one of {', '.join(map(repr, get_args(hint)))}, got {value!r}")
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if type(value) is not kind:
        raise ConfigError(f"{path}: [{where}] {key} must be of type {kind.__name__}, got {value!r}")
    return value
