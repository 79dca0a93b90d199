"""`[tool.codeheal]` in pyproject.toml: the flags' settings, layered defaults < environment <
config < flags, and a `fix` table that makes the CI line plain `codeheal fix`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codeheal.config_file import flag_fields, load_config
from codeheal.errors import ConfigError
from codeheal.runner import merged_context

CONFIG = """
[project]
name = "shop"

[tool.codeheal]
model = "from-config"
max-attempts = 4
timeout = 20
reflect = false

[tool.codeheal.fix]
test = "python -m pytest -q tests"
target = "shop/pricing.py::bulk_discount"
timeout = 30
"""


def write(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(text)
    return folder


def test_every_run_flag_is_a_key() -> None:
    keys = flag_fields()
    assert keys["max-attempts"] == "max_attempts" and keys["timeout"] == "timeout_s" and keys["base-url"] == "base_url"
    assert "review-on-exhaustion" not in keys, "no flag, so no key"


def test_fix_table_over_the_main_table_and_found_from_a_subfolder(tmp_path: Path) -> None:
    write(tmp_path, CONFIG)
    (tmp_path / "pkg").mkdir()
    fix = load_config(tmp_path / "pkg", command="fix")
    assert fix.path == tmp_path / "pyproject.toml"
    assert fix.settings == {"model": "from-config", "max_attempts": 4, "timeout_s": 30.0, "reflect": False}
    assert fix.fix == {"test_command": "python -m pytest -q tests", "target": "shop/pricing.py::bulk_discount"}
    solve = load_config(tmp_path, command="solve")
    assert solve.settings["timeout_s"] == 20.0 and solve.fix == {}


def test_layers_defaults_environment_config_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, CONFIG)
    monkeypatch.setenv("CODEHEAL_MODEL", "from-env")
    monkeypatch.setenv("CODEHEAL_MEMORY", "2")
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "9")
    config = load_config(tmp_path, command="fix").settings
    context = merged_context({}, {**config, "model": "from-flag"})
    assert context.model == "from-flag", "a flag beats the config"
    assert context.max_attempts == 4, "the config beats the environment"
    assert context.memory == 2, "the environment beats the default"
    assert context.temperature == 0.0, "the default where nothing says"


@pytest.mark.parametrize(("text", "message"), [
    ("[tool.codeheal]\nmax_attempts = 3\n", "'max_attempts' is not a codeheal setting"),
    ("[tool.codeheal]\ntest = 'pytest'\n", "fix's own keys (test, task, target, python) go in [tool.codeheal.fix]"),
    ("[tool.codeheal]\nmax-attempts = 'many'\n", "max-attempts must be of type int, got 'many'"),
    ("[tool.codeheal]\nsandbox = 'docker'\n", "sandbox must be one of 'local', 'e2b', got 'docker'"),
    ("[tool.codeheal.fix]\ntest = ['pytest']\n", "test must be a string"),
    ("[tool.codeheal\n", "cannot read it"),
])
def test_bad_config_is_a_config_error_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path, text)
    with pytest.raises(ConfigError, match=str(tmp_path / "pyproject.toml")) as error:
        load_config(tmp_path, command="fix")
    assert message in str(error.value)


def test_plain_codeheal_fix_takes_the_test_command_and_settings_from_the_config(tmp_path: Path, capsys) -> None:
    import shutil

    from scripted_openai import ScriptedServer

    from codeheal.cli import main

    shop = tmp_path / "shop"
    shutil.copytree(Path(__file__).parent / "project" / "fixtures" / "shop", shop)
    fixed = (
        "```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n"
        '    """Percent off for buying `quantity` of one item."""\n'
        "    for threshold, percent in DISCOUNT_TIERS:\n        if quantity >= threshold:\n"
        "            return percent\n    return 0\n```\n"
    )
    with ScriptedServer(lambda body: fixed) as server:
        write(shop, f'[tool.codeheal]\nmodel = "scripted"\nbase-url = "{server.url}"\nmax-attempts = 2\n'
                    '[tool.codeheal.fix]\ntest = "python -m pytest -q"\n')
        subprocess.run(["git", "init", "-q"], cwd=shop, check=True)
        code = main(["fix", str(shop), "--checkpointer", str(tmp_path / "c.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "model scripted" in err and "up to 2 attempts" in err
    assert "+        if quantity >= threshold:" in out


def test_fix_without_a_test_command_anywhere_is_refused(tmp_path: Path, capsys) -> None:
    from codeheal.cli import main

    write(tmp_path, "[project]\nname = 'x'\n")
    assert main(["fix", str(tmp_path)]) == 2
    assert "give --test CMD, or set test in [tool.codeheal.fix]" in " ".join(capsys.readouterr().err.split())
