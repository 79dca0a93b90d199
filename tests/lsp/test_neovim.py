"""A real editor: Neovim, headless (Debian's package), opens the shop fixture with `codeheal
lsp` attached, receives the diagnostic of the failing test, takes the "Heal with codeheal"
code action and writes the buffer; the file on disk then passes the project's tests."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doubles import SHOP, SHOP_FIXED
from scripted_openai import ScriptedServer, is_fix_actor

SCRIPT = Path(__file__).with_name("heal.lua")
LESSON = "bulk_discount compares with > but a tier starts at its threshold: use >=."

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (make system installs it)")


def run_tests(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], check=False, cwd=project,
                          capture_output=True, text=True)


def test_neovim_heals_a_failing_test_with_the_code_action(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    assert run_tests(project).returncode == 1
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as model:
        (project / "pyproject.toml").write_text(
            f'[tool.codeheal]\nmodel = "scripted"\nbase-url = "{model.url}"\nmax-attempts = 3\n\n'
            f'[tool.codeheal.fix]\ntest = "{sys.executable} -m pytest -q"\nmutants = 0\n',
            encoding="utf-8",
        )
        env = {**os.environ, "PROJECT": str(project), "FILE": str(project / "tests" / "test_cart.py"),
               "SERVER": sys.executable, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_STATE_HOME": str(tmp_path / "state")}
        neovim = subprocess.run(["nvim", "--headless", "--clean", "-n", "-c", f"luafile {SCRIPT}"], env=env, check=False,
                                capture_output=True, text=True, timeout=240)
    assert neovim.returncode == 0, neovim.stderr[-2000:]
    assert "if quantity >= threshold:" in (project / "shop" / "pricing.py").read_text(encoding="utf-8")
    assert run_tests(project).returncode == 0
