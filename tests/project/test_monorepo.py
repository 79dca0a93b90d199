"""A project in a subfolder of a git repository (a monorepo): the diff and the GitHub
annotations name files from the repository's top, so `git apply` there and the pull request's
annotations find them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from doubles import SHOP, SHOP_FIXED
from scripted_openai import ScriptedServer, is_fix_actor
from test_fix import LESSON, TEST, git

from codeheal.cli import main
from codeheal.forms.project.diff import rooted
from codeheal.forms.project.snapshot import git_prefix


@pytest.fixture
def monorepo(tmp_path: Path) -> Path:
    """A git repository whose shop project lives in packages/shop."""
    repo = tmp_path / "repo"
    shutil.copytree(SHOP, repo / "packages" / "shop")
    (repo / "README.md").write_text("a monorepo\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "monorepo")
    return repo


def heal(monorepo: Path, tmp_path: Path, capsys, *args: str) -> tuple[int, str, str]:
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as server:
        code = main(["fix", str(monorepo / "packages" / "shop"), "--test", TEST, "--model", "scripted",
                     "--base-url", server.url, "--mutants", "0", "--checkpointer", str(tmp_path / "c.sqlite"), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_diff_names_files_from_the_repository_top_and_applies_there(monorepo: Path, tmp_path: Path, capsys) -> None:
    code, out, err = heal(monorepo, tmp_path, capsys)
    assert code == 0, err
    assert out.startswith("--- a/packages/shop/shop/pricing.py\n+++ b/packages/shop/shop/pricing.py\n")
    (tmp_path / "fix.diff").write_text(out)
    subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.diff")], cwd=monorepo, check=True)


def test_annotations_name_files_from_the_repository_top(monorepo: Path, tmp_path: Path, capsys) -> None:
    code, out, err = heal(monorepo, tmp_path, capsys, "--format", "github")
    assert code == 0, err
    assert out.startswith("::error file=packages/shop/shop/pricing.py,line=10,endLine=10,")


def test_git_prefix_is_empty_at_the_top_and_outside_a_repository(monorepo: Path, tmp_path: Path) -> None:
    assert git_prefix(monorepo / "packages" / "shop") == "packages/shop/"
    assert git_prefix(monorepo) == ""
    outside = tmp_path / "plain"
    outside.mkdir()
    assert git_prefix(outside) == ""


def test_rooted_rewrites_only_the_header_lines() -> None:
    diff = ("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n--- a/y\n+++ b/y\n"
            "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+print()\n")
    assert rooted(diff, "sub/") == (
        "--- a/sub/x.py\n+++ b/sub/x.py\n@@ -1 +1 @@\n--- a/y\n+++ b/y\n"
        "--- /dev/null\n+++ b/sub/new.py\n@@ -0,0 +1 @@\n+print()\n"
    )
    assert rooted(diff, "") == diff
