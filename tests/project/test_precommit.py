"""The pre-commit hook codeheal offers: a valid manifest at the pre-commit stage; a commit with
failing tests is blocked and shown the fix (exit 4), or with --apply gets it written into the
files being committed (staged counts as committed there alone); exit 1 when not healed."""

from __future__ import annotations

import os
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

from codeheal.cli import EXIT_CHANGE_PROPOSED, EXIT_NOT_HEALED, main

MANIFEST = Path(__file__).parents[2] / ".pre-commit-hooks.yaml"


def test_manifest_is_valid() -> None:
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extra")
    run = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(MANIFEST)],
        capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_hook_runs_codeheal_fix_at_the_pre_commit_stage() -> None:
    (hook,) = yaml.safe_load(MANIFEST.read_text())
    assert hook["id"] == "codeheal-fix"
    assert hook["entry"] == "codeheal fix . --exit-code", "no --test: the project's configured command applies"
    assert hook["stages"] == ["pre-commit"] and hook["pass_filenames"] is False


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


def run_hook(project: Path, tmp_path: Path, monkeypatch, capsys, server_url: str, *more: str) -> tuple[int, str, str]:
    """The manifest's entry as pre-commit runs it (from the repository's root), with the model in args."""
    (hook,) = yaml.safe_load(MANIFEST.read_text())
    monkeypatch.chdir(project)
    args = ["--model", "scripted", "--base-url", server_url, "--mutants", "0",
            "--checkpointer", str(tmp_path / "checkpoints.sqlite"), *more]
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
    assert code == EXIT_CHANGE_PROPOSED, err
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


def test_a_failed_heal_exits_1_not_the_proposed_changes_4(configured_shop: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    with ScriptedServer(lambda body: "I cannot help." if is_fix_actor(body["messages"]) else LESSON) as server:
        code, out, err = run_hook(configured_shop, tmp_path, monkeypatch, capsys, server.url)
    assert code == EXIT_NOT_HEALED, err
    assert out == "" and "not healed" in err


def test_with_apply_the_hook_writes_into_the_staged_file_only_under_pre_commit(
    configured_shop: Path, tmp_path: Path, monkeypatch, capsys,
) -> None:
    """A staged change of the file the fix rewrites counts as committed while pre-commit runs
    the hook (PRE_COMMIT=1): the fix is written over it and left unstaged; outside pre-commit
    the same run refuses (exit 2) and writes nothing."""
    pricing = configured_shop / "shop" / "pricing.py"
    pricing.write_text(pricing.read_text(encoding="utf-8") + "\n\nVAT_PERCENT = 20\n", encoding="utf-8")
    git(configured_shop, "add", "shop/pricing.py")
    staged = pricing.read_text(encoding="utf-8")
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as server:
        monkeypatch.delenv("PRE_COMMIT", raising=False)
        code, _, err = run_hook(configured_shop, tmp_path, monkeypatch, capsys, server.url, "--apply")
        assert code == 2 and "uncommitted changes" in err
        assert pricing.read_text(encoding="utf-8") == staged
        monkeypatch.setenv("PRE_COMMIT", "1")
        code, _, err = run_hook(configured_shop, tmp_path, monkeypatch, capsys, server.url, "--apply")
    assert code == EXIT_CHANGE_PROPOSED, err
    assert "if quantity >= threshold:" in pricing.read_text(encoding="utf-8") and "VAT_PERCENT = 20" in pricing.read_text(encoding="utf-8")
    assert git(configured_shop, "status", "--porcelain") == "MM shop/pricing.py\n", "the fix is left for the user to stage"


def test_git_commit_with_failing_tests_is_blocked_until_the_written_fix_is_staged(configured_shop: Path, tmp_path: Path) -> None:
    """A real `git commit` through pre-commit (a `language: system` hook running this codeheal,
    with --apply): blocked, the fix written; staged, the next commit goes through."""
    pytest.importorskip("pre_commit", reason="pre-commit is in the dev extra")
    codeheal = Path(sys.executable).with_name("codeheal")
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as server:
        (configured_shop / "pyproject.toml").write_text(
            f'[tool.codeheal]\nmodel = "scripted"\nbase-url = "{server.url}"\n\n'
            f'[tool.codeheal.fix]\ntest = "{sys.executable} -m pytest -q tests/test_cart.py"\nmutants = 0\n',
            encoding="utf-8",
        )
        (configured_shop / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [{
            "id": "codeheal-fix", "name": "codeheal fix", "entry": f"{codeheal} fix . --exit-code --apply",
            "language": "system", "pass_filenames": False, "always_run": True, "stages": ["pre-commit"],
        }]}]}), encoding="utf-8")
        env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"), "CODEHEAL_CHECKPOINTER": str(tmp_path / "c.sqlite"),
               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
        subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=configured_shop, env=env, check=True, capture_output=True)
        git(configured_shop, "add", "-A")
        blocked = subprocess.run(["git", "commit", "-qm", "config"], cwd=configured_shop, env=env, capture_output=True, text=True, check=False)
        assert blocked.returncode != 0 and "if quantity >= threshold:" in blocked.stdout + blocked.stderr, "the fix is shown"
        assert git(configured_shop, "log", "--oneline").count("\n") == 1, "no commit"
        assert "if quantity >= threshold:" in (configured_shop / "shop" / "pricing.py").read_text(encoding="utf-8")
        git(configured_shop, "add", "-A")
        passed = subprocess.run(["git", "commit", "-qm", "config and the fix"], cwd=configured_shop, env=env,
                                capture_output=True, text=True, check=False)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert git(configured_shop, "status", "--porcelain") == ""
