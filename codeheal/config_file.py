"""`[tool.codeheal]` in a project's pyproject.toml: the same settings as the command-line
flags, so a hook or a CI line becomes plain `codeheal fix`.

```toml
[tool.codeheal]          # settings for every command
model = "qwen2.5-coder:7b"
base-url = "http://localhost:11434/v1"
max-attempts = 4

[tool.codeheal.solve]    # `codeheal solve` only: the module form's settings
select-samples = 4

[tool.codeheal.fix]      # `codeheal fix` only: its own flags, and the project form's settings
test = "python -m pytest -q tests/unit"
timeout = 30
mutants = 40
```

Keys are the flags' names without the dashes; a key takes the table of the command it applies
to, and one in the wrong table, or misspelled, is refused naming the right one. The command's
table is over the main one, and both are one layer of context.resolve: over the environment,
under the settings a resumed run saved and the flags typed."""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from codeheal.context import CHOICES, SETTINGS
from codeheal.errors import ConfigError
from codeheal.settings.checks import COMMANDS, NOT_FOR
from codeheal.settings.values import expected, fits, is_sequence, kind
from codeheal.state import FormName

Command = Literal["solve", "fix"]
RUN_FLAGS = {
    # setting: flag. Settings not named here get --setting-name; review_on_exhaustion has
    # no flag: a paused CLI run could not be answered.
    "max_attempts": "--max-attempts",
    "timeout_s": "--timeout",
    "deadline_s": "--deadline",
    "e2b_lifetime_s": "--e2b-lifetime",
    "then_models": "--then-model",  # given once per model
}
NO_FLAG = {"review_on_exhaustion"}
FIX_KEYS = {"test": "test_command", "check": "check_command", "task": "task", "target": "target", "python": "python"}
"""`[tool.codeheal.fix]` keys of fix's own flags -> the argument each fills."""
FORMS: dict[Command, FormName] = {"solve": "module", "fix": "project"}


def run_flag(name: str) -> str:
    """The flag of setting `name`, e.g. --max-attempts."""
    return RUN_FLAGS.get(name, "--" + name.replace("_", "-"))


def flag_fields() -> dict[str, str]:
    """Config key (the flag without its dashes) -> setting, for every setting with a flag."""
    return {run_flag(name)[2:]: name for name in SETTINGS if name not in NO_FLAG}


def applies(name: str, command: Command) -> bool:
    """Whether setting `name` applies to `command` (to a run of its form)."""
    return name not in NOT_FOR[FORMS[command]]


@dataclass(frozen=True)
class ProjectConfig:
    """What a pyproject.toml's `[tool.codeheal]` tables set for one command."""

    path: Path | None
    """The file it came from; None when there was none (or it has no table)."""
    settings: dict[str, object] = field(default_factory=dict)
    """Settings by flat name -> values."""
    fix: dict[str, str] = field(default_factory=dict)
    """fix's own arguments (test_command, check_command, task, target, python) -> values."""


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml in `start` or a folder above it."""
    for folder in (start.absolute(), *start.absolute().parents):
        if (folder / "pyproject.toml").is_file():
            return folder / "pyproject.toml"
    return None


def load_config(start: Path, *, command: Command) -> ProjectConfig:
    """The settings of the pyproject.toml nearest `start` for `command`: `[tool.codeheal]`'s,
    with the command's own table's (`[tool.codeheal.solve]` or `.fix`) over them. Every table
    is checked, whichever the command: ConfigError for a file that does not parse, a key that
    is no setting (with the likeliest meant), one in a table it does not apply to (with the
    table it goes in), or a value of the wrong type, naming the file and the key."""
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
    tables: dict[Command, dict] = {}
    for own in ("solve", "fix"):
        tables[own] = table.get(own, {})
        if not isinstance(tables[own], dict):
            raise ConfigError(f"{path}: [tool.codeheal.{own}] must be a table")
    common = _settings(path, None, {k: v for k, v in table.items() if k not in tables})
    commands = {own: _settings(path, own, {k: v for k, v in tables[own].items() if own != "fix" or k not in FIX_KEYS})
                for own in tables}
    fix: dict[str, str] = {}
    for key, value in tables["fix"].items():
        if key in FIX_KEYS:
            if not isinstance(value, str):
                raise ConfigError(f"{path}: [tool.codeheal.fix] {key} must be a string, got {value!r}")
            fix[FIX_KEYS[key]] = value
    return ProjectConfig(path, common | commands[command], fix if command == "fix" else {})


def _settings(path: Path, command: Command | None, table: dict[str, object]) -> dict[str, object]:
    """A table's settings, checked; `command`: the command whose table it is (None: the main one)."""
    where = "tool.codeheal" + (f".{command}" if command else "")
    known = flag_fields()
    settings: dict[str, object] = {}
    for key, value in table.items():
        name = known.get(key)
        if name is None:
            raise ConfigError(f"{path}: [{where}] {key!r} is not a codeheal setting (the flags' names without dashes)"
                              + _meant(key, command))
        wrong = [own for own in FORMS if not applies(name, own)]  # every setting applies to one at least
        if wrong and (command is None or command in wrong):
            right = next(own for own in FORMS if own not in wrong)
            raise ConfigError(f"{path}: [{where}] {key} does not apply to {COMMANDS[FORMS[wrong[0]]]}: "
                              f"{NOT_FOR[FORMS[wrong[0]]][name]}; put it in [tool.codeheal.{right}]")
        settings[name] = _checked(path, where, key, value, name)
    return settings


def _meant(key: str, command: Command | None) -> str:
    """A hint for a key that is no setting: fix's own keys' table, or the likeliest setting meant."""
    if key in FIX_KEYS and command != "fix":
        return "; fix's own keys (test, task, target, python) go in [tool.codeheal.fix]"
    close = difflib.get_close_matches(key, [*flag_fields(), *(FIX_KEYS if command == "fix" else ())], n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _checked(path: Path, where: str, key: str, value: object, name: str) -> object:
    plain = kind(SETTINGS[name].hint)
    if is_sequence(SETTINGS[name].hint):  # a list, or one value
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise ConfigError(f"{path}: [{where}] {key} must be a string or a list of strings, got {value!r}")
        return values
    allowed = CHOICES.get(name)
    if allowed is not None and value not in allowed:
        raise ConfigError(f"{path}: [{where}] {key} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    if not fits(SETTINGS[name].hint, value):
        raise ConfigError(f"{path}: [{where}] {key} must be {expected(SETTINGS[name].hint)}, got {value!r}")
    return float(value) if plain is float else value
