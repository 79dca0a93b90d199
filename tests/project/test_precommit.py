"""The pre-commit hook manifest codeheal offers is valid, and runs `codeheal fix` by hand only."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from doubles import SHOP, SHOP_FIXED
from scripted_openai import ScriptedServer, is_fix_actor
from test_fix import LESSON, git

from codeheal.cli import main

MANIFEST = Path(__file__).parents[2] / ".pre-commit-hooks.yaml"


def test_manifest_is_valid() -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extra")
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_hook_runs_codeheal_fix_in_the_manual_stage() -> None:
    (hook,) = yaml.safe_load(MANIFEST.read_text())
    assert hook["id"] == "codeheal-fix"
    assert hook["entry"] == "codeheal fix . --exit-code", "no --test: the project's configured command applies"
    assert hook["stages"] == ["manual"] and hook["pass_filenames"] is False


def test_the_system_hook_recipe_in_the_docs_is_a_valid_config(tmp_path: Path) -> None:
    """docs/fix.md's `language: system` recipe (the tool installed with pipx, no embedded model
    in the hook's environment) is a valid .pre-commit-config.yaml running plain `codeheal fix`."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extra")
    doc = (MANIFEST.parent / "docs" / "fix.md").read_text(encoding="utf-8")
    recipe = doc.split("<!-- checked by tests/project/test_precommit.py -->\n```yaml\n", 1)[1].split("```", 1)[0]
    (hook,) = yaml.safe_load(recipe)["repos"][0]["hooks"]
    assert hook["language"] == "system" and hook["entry"] == "codeheal fix . --exit-code"
    config = tmp_path / ".pre-commit-config.yaml"
    config.write_text(recipe)
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(config)], capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def run_hook(project: Path, tmp_path: Path, monkeypatch, capsys, server_url: str) -> tuple[int, str, str]:
    """The manifest's entry as pre-commit runs it (from the repository's root), with the model in args."""
    (hook,) = yaml.safe_load(MANIFEST.read_text())
    monkeypatch.chdir(project)
    args = ["--model", "scripted", "--base-url", server_url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite")]
    code = main(shlex.split(hook["entry"])[1:] + args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def configured_shop(tmp_path: Path) -> Path:
    """The shop fixture in git, whose pyproject.toml names the test command the hook must run."""
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    (project / "pyproject.toml").write_text(
        '[tool.codeheal.fix]\ntest = "python -m pytest -q tests/test_cart.py"\n', encoding="utf-8",
    )
    git(project, "init", "-q")
    git(project, "add", "-A")
    git(project, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "shop")
    return project


def test_the_hook_fails_and_shows_the_diff_when_it_proposes_a_change(
    configured_shop: Path, tmp_path: Path, monkeypatch, capsys,
) -> None:
    calls: list[str] = []

    def script(body: dict) -> str:
        calls.append(body["messages"][0]["content"])
        return SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON

    with ScriptedServer(script) as server:
        code, out, err = run_hook(configured_shop, tmp_path, monkeypatch, capsys, server.url)
    assert code == 1, err
    assert out.startswith("--- a/shop/pricing.py\n") and "+        if quantity >= threshold:\n" in out
    assert calls, "the configured command ran, failed, and the model was asked"
    assert git(configured_shop, "status", "--porcelain") == "", "the hook writes nothing"


def test_the_hook_passes_when_the_configured_tests_pass(
    configured_shop: Path, tmp_path: Path, monkeypatch, capsys,
) -> None:
    """With the config alone the hook runs the configured command: a passing one (the receipt
    tests) needs no model and no change, so the hook exits 0."""
    (configured_shop / "pyproject.toml").write_text(
        '[tool.codeheal.fix]\ntest = "python -m pytest -q tests/test_receipt.py"\n', encoding="utf-8",
    )
    with ScriptedServer(lambda body: pytest.fail("no model call for passing tests")) as server:
        code, out, err = run_hook(configured_shop, tmp_path, monkeypatch, capsys, server.url)
    assert code == 0, err
    assert out == "" and "nothing to change" in err
