"""Real project layouts built in a temp folder, each with its own virtualenv where it needs one
(pytest copied in, tests/helpers/project_venv.py; the project installed by pip, offline, from the build
backend already installed here), healed end to end through the CLI."""

from __future__ import annotations

import importlib.metadata as md
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from project_venv import venv_with_pytest
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main

WC_BUG = "def count_words(text):\n    return len(text.split(' ')) + 1\n"
WC_FIX = "def count_words(text):\n    return len(text.split())\n"
WC_TEST = "from wc import count_words\n\n\ndef test_count():\n    assert count_words('a b c') == 3\n"
SETUPTOOLS_PYPROJECT = (
    '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
    '[project]\nname = "wc"\nversion = "0.1"\n'
)


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    """The project `files` under `root` (made)."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return root


def build_venv(venv: Path, *, setuptools: bool = False) -> Path:
    """A virtualenv holding pytest (and setuptools, to build the project without a network);
    its site-packages."""
    if setuptools:
        # Looked up, not imported: importing setuptools into the test process fails once any
        # earlier test imported the standard library's distutils (setuptools' distutils hack).
        try:
            md.distribution("setuptools")
        except md.PackageNotFoundError:
            pytest.skip("setuptools is not installed here to build the project")
    site = venv_with_pytest(venv)
    if setuptools:
        copy_distribution("setuptools", site)
    return site


def copy_distribution(name: str, site: Path) -> None:
    """Copy an installed distribution of codeheal's environment into `site`, metadata included."""
    dist = md.distribution(name)
    for top in {file.parts[0] for file in dist.files or ()} - {"..", "__pycache__"}:
        source = Path(dist.locate_file(top))
        if source.exists():
            (shutil.copytree if source.is_dir() else shutil.copy)(source, site / top)


def pip_install(venv: Path, *args: str) -> None:
    """pip install into `venv`, offline, with the build backend the venv already holds."""
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                    "--no-deps", "--no-index", "--no-build-isolation", *args], check=True)


def hatch_editable(site: Path, name: str, source: Path) -> None:
    """What hatchling's editable install writes (`_NAME.pth` naming the source folder, and the
    distribution's metadata), written directly: hatchling is not installed here to run."""
    (site / f"_{name}.pth").write_text(f"{source}\n")
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.3\nName: {name}\nVersion: 0.1\n")
    (info / "direct_url.json").write_text(json.dumps({"url": source.parent.as_uri(), "dir_info": {"editable": True}}))


def heal(capsys, tmp_path: Path, project: Path, test: str, fixed: dict[str, str], *extra: str) -> tuple[int, str, str, int]:
    """`codeheal fix` on `project` through the CLI, the scripted model answering with `fixed`
    (path -> the corrected definitions); exit code, stdout, stderr and the number of model calls."""
    reply = "".join(f"```python\n# {path}\n{code}```\n" for path, code in fixed.items())
    with ScriptedServer(lambda body: reply if is_fix_actor(body["messages"]) else "Fix the code.") as server:
        code = main(["fix", str(project), "--test", test, "--model", "scripted", "--base-url", server.url,
                     "--mutants", "0", "--checkpointer", str(tmp_path / "checkpoints.sqlite"), *extra])
    out, err = capsys.readouterr()
    return code, out, err, len(server.requests)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` and its bytes (the host project, to check it is left alone)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
