"""`[tool.codeheal]` in pyproject.toml: the flags' settings, layered defaults < environment <
config < flags, a `fix` table that makes the CI line plain `codeheal fix`, and a `solve` table;
a key in a table it does not apply to, or misspelled, is refused naming the right one."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from codeheal.config_file import flag_fields, load_config
from codeheal.context import resolve
from codeheal.errors import ConfigError

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
    context = resolve({"model": "from-flag"}, config=config).context
    assert context.model == "from-flag", "a flag beats the config"
    assert context.max_attempts == 4, "the config beats the environment"
    assert context.policy.memory == 2, "the environment beats the default"
    assert context.policy.temperature == 0.0, "the default where nothing says"


@pytest.mark.parametrize(("text", "message"), [
    ("[tool.codeheal]\nmax_attempts = 3\n", "'max_attempts' is not a codeheal setting"),
    ("[tool.codeheal]\nmax-atempts = 3\n", ("'max-atempts' is not a codeheal setting (the flags' names without "
                                               "dashes); did you mean 'max-attempts'?")),
    ("[tool.codeheal.fix]\ntset = 'pytest'\n", "did you mean 'test'?"),
    ("[tool.codeheal]\nmutants = 5\n", ("[tool.codeheal] mutants does not apply to `codeheal solve` (module form): "
                                        "a setting of the project form (`codeheal fix`); put it in [tool.codeheal.fix]")),
    ("[tool.codeheal.solve]\nlint = false\n", "[tool.codeheal.solve] lint does not apply to `codeheal solve`"),
    ("[tool.codeheal.fix]\nselect-samples = 3\n", ("[tool.codeheal.fix] select-samples does not apply to `codeheal fix` "
                                                   "(project form): a setting of the module form (`codeheal solve`); "
                                                   "put it in [tool.codeheal.solve]")),
    ("[tool.codeheal.fix]\nfresh-start = false\n", ("fresh-start does not apply to `codeheal fix` (project form): "
                                                    "the project form sets it itself")),
    ("[tool.codeheal]\nselect-samples = 3\n", "put it in [tool.codeheal.solve]"),
    ("[tool.codeheal]\npolicy = 'greedy'\n", "policy must be one of 'adaptive', 'one_shot', 'resample'"),
    ("[tool.codeheal]\ntest = 'pytest'\n", "fix's own keys (test, task, target, python) go in [tool.codeheal.fix]"),
    ("[tool.codeheal]\nmax-attempts = 'many'\n", "max-attempts must be an integer, got 'many'"),
    ("[tool.codeheal]\nmax-attempts = true\n", "max-attempts must be an integer, got True"),
    ("[tool.codeheal.solve]\nfeedback = 'false'\n", "feedback must be true or false, got 'false'"),
    ("[tool.codeheal]\ntemperature = true\n", "temperature must be a number, got True"),
    ("[tool.codeheal]\nsandbox = 'docker'\n", "sandbox must be one of 'local', 'e2b', got 'docker'"),
    ("[tool.codeheal.fix]\ntest = ['pytest']\n", "test must be a string"),
    ("[tool.codeheal\n", "cannot read it"),
])
def test_bad_config_is_a_config_error_naming_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    write(tmp_path, text)
    with pytest.raises(ConfigError, match=str(tmp_path / "pyproject.toml")) as error:
        load_config(tmp_path, command="fix")
    assert message in str(error.value)


def test_each_command_takes_its_own_table_over_the_main_one(tmp_path: Path) -> None:
    write(tmp_path, "[tool.codeheal]\nmax-attempts = 4\n[tool.codeheal.solve]\nselect-samples = 3\nmax-attempts = 5\n"
                    "[tool.codeheal.fix]\nmutants = 7\n")
    assert load_config(tmp_path, command="solve").settings == {"max_attempts": 5, "select_samples": 3}
    assert load_config(tmp_path, command="fix").settings == {"max_attempts": 4, "mutants": 7}


def test_a_policy_named_in_the_config_is_a_unit_over_the_environment(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path, "[tool.codeheal]\npolicy = 'one_shot'\n")
    monkeypatch.setenv("CODEHEAL_MAX_ATTEMPTS", "5")
    assert resolve(config=load_config(tmp_path, command="solve").settings).context.max_attempts == 1


def test_plain_codeheal_fix_takes_the_test_command_and_settings_from_the_config(tmp_path: Path, capsys) -> None:
    import shutil

    from scripted_openai import ScriptedServer

    from codeheal.cli import main

    shop = tmp_path / "shop"
    shutil.copytree(Path(__file__).parents[1] / "project" / "fixtures" / "shop", shop)
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
