"""A real editor: Neovim, headless (the installed version: Debian's 0.7 here), with
docs/editors.md's snippet as its init.lua, as a user would have it. Opening a module of the
shop fixture shows its syntax slip where it is, with the heal offered; once the slip is
corrected and written, the failing tests show on the source line of the bug; the heal's
progress moves, its edit is written, and the project's tests then pass on disk."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doubles import SHOP, SHOP_FIXED
from scripted_openai import ScriptedServer, is_fix_actor

SCRIPT = Path(__file__).with_name("heal.lua")
EDITORS_DOC = Path(__file__).parents[2] / "docs" / "editors.md"
LESSON = "bulk_discount names DISCOUNT_TIER, which is not defined: the tiers are DISCOUNT_TIERS."

pytestmark = pytest.mark.skipif(shutil.which("nvim") is None, reason="Neovim is not installed (`make neovim` installs it; `make test` runs that)")


def neovim_snippet() -> str:
    """The Lua block of docs/editors.md's Neovim section, as a user copies it into init.lua."""
    section = EDITORS_DOC.read_text(encoding="utf-8").split("\n## Neovim\n", 1)[1].split("\n## ", 1)[0]
    [block] = re.findall(r"```lua\n(.*?)```", section, flags=re.DOTALL)
    return block


def run_tests(project: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], check=False, cwd=project,
                          capture_output=True, text=True)


def broken(project: Path) -> tuple[int, int]:
    """The shop with its discount tiers right, a misspelt name in bulk_discount (the bug) and a
    missing colon on line_total's `def` (the slip): their 1-based lines."""
    pricing = project / "shop" / "pricing.py"
    text = pricing.read_text(encoding="utf-8").replace("quantity > threshold", "quantity >= threshold")
    text = text.replace("in DISCOUNT_TIERS:", "in DISCOUNT_TIER:").replace(") -> int:\n    \"\"\"What", ") -> int\n    \"\"\"What")
    pricing.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    return lines.index("def line_total(unit_cents: int, quantity: int) -> int") + 1, next(
        n for n, line in enumerate(lines, 1) if "DISCOUNT_TIER:" in line)


def test_neovim_with_the_documented_config_shows_failures_where_they_are_and_heals_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "src" / "myproject"  # the folder the snippet trusts
    shutil.copytree(SHOP, project)
    slip, bug = broken(project)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "codeheal").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m codeheal "$@"\n', encoding="utf-8")
    (bin_dir / "codeheal").chmod(0o755)
    (tmp_path / "init.lua").write_text(neovim_snippet(), encoding="utf-8")
    with ScriptedServer(lambda body: SHOP_FIXED if is_fix_actor(body["messages"]) else LESSON) as model:
        (project / "pyproject.toml").write_text(
            f'[tool.codeheal]\nmodel = "scripted"\nbase-url = "{model.url}"\nmax-attempts = 3\n\n'
            f'[tool.codeheal.fix]\ntest = "{sys.executable} -m pytest -q"\nmutants = 0\n',
            encoding="utf-8",
        )
        env = {**os.environ, "HOME": str(home), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
               "FILE": str(project / "shop" / "pricing.py"), "SLIP": str(slip), "BUG": str(bug),
               **{f"XDG_{kind}_HOME": str(tmp_path / kind.lower()) for kind in ("CONFIG", "DATA", "STATE", "CACHE")}}
        neovim = subprocess.run(["nvim", "--headless", "-n", "-i", "NONE", "-u", str(tmp_path / "init.lua"),
                                 "-c", f"luafile {SCRIPT}"], env=env, check=False, capture_output=True, text=True,
                                timeout=400)
    assert neovim.returncode == 0, neovim.stderr[-2000:]
    said = neovim.stdout.splitlines()
    assert said[:2] == ["slip", "bug"] and said[-1] == "codeheal: healed shop/pricing.py"
    progress = [line for line in said if line.startswith("progress: ")]
    assert any(re.match(r"progress: attempt 2 of 3: (model|tests): .* s left$", line) for line in progress), progress
    assert "for threshold, percent in DISCOUNT_TIERS:" in (project / "shop" / "pricing.py").read_text(encoding="utf-8")
    assert run_tests(project).returncode == 0
