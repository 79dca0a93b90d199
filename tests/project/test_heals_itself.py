"""codeheal heals itself: a one-line bug planted in a copy of this repository's package, healed
by `codeheal fix` through the CLI (scripted model) with one of its own test files as the test
command, on codeheal's own virtualenv (its dependencies, and its editable install of the
original checkout, which the copy at its own path shadows from the working directory)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

from layouts import heal, tree

ROOT = Path(__file__).resolve().parent.parent.parent
MODULE = "codeheal/prompting/extraction.py"
RIGHT, WRONG = "if DEFINITION.search(b)]", "if not DEFINITION.search(b)]"
TEST = "tests/forms/test_extraction.py"


def tracked(*paths: str) -> list[str]:
    listed = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(ROOT), "ls-files", "-z", *paths],
                            capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_codeheal_heals_a_bug_planted_in_its_own_copy(tmp_path: Path, capsys) -> None:
    copy = tmp_path / "codeheal"
    for name in tracked("codeheal", "pyproject.toml", TEST):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, copy / name)
    source = (copy / MODULE).read_text()
    assert source.count(RIGHT) == 1
    (copy / MODULE).write_text(source.replace(RIGHT, WRONG))
    function = next(n for n in ast.parse(source).body if isinstance(n, ast.FunctionDef) and n.name == "extract_code")
    fixed = ast.get_source_segment(source, function) + "\n"
    before = tree(copy)
    code, out, err, _ = heal(capsys, tmp_path, copy, f"python -m pytest -q -p no:cacheprovider {TEST}",
                             {MODULE: fixed}, "--python", sys.executable)
    assert code == 0, err
    assert f"-        useful = [b for b in blocks {WRONG}" in out and f"+        useful = [b for b in blocks {RIGHT}" in out
    assert "attempt 1: failed" in err and tree(copy) == before
