"""The docs say what the code and the results say, and start-up stays light."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "codeheal_bench" / "scripts"))

from render_docs import stale_files  # noqa: E402


def test_rendered_numbers_and_tables_match_their_sources():
    assert stale_files() == [], "run: python codeheal_bench/scripts/render_docs.py"


def test_readme_stays_short_and_names_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 120
    assert "make demo" in readme and "make test" in readme
    assert "codeheal solve" in readme and "codeheal fix" in readme
    assert 'pytest -m "not slow"' in readme  # the contributors' fast subset


def test_every_doc_the_readme_links_exists():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("design", "library", "cli", "models", "deployment", "benchmarks", "security"):
        assert f"](docs/{name}.md)" in readme
        assert (ROOT / "docs" / f"{name}.md").is_file()


def test_the_cli_starts_without_langchain_langgraph_or_openai():
    probe = (
        "import sys, codeheal, codeheal.cli; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'langgraph', 'langchain_core', 'openai'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_cli_doc_lists_every_run_setting_flag():
    from codeheal.config_file import NO_FLAG, run_flag
    from codeheal.context import SETTINGS

    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    for name, spec in SETTINGS.items():
        if name in NO_FLAG:
            continue
        flag = run_flag(name)
        shown = flag.replace("--", "--[no-]", 1) if isinstance(spec.default, bool) else flag + " "
        assert shown in doc, f"docs/cli.md does not list {shown.strip()}"


def test_the_module_map_names_every_module():
    import ast
    import re

    doc = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    named = set()
    for row in re.findall(r"^\| (`codeheal/.+?) \|", doc[doc.index("## Module map"):], re.M):
        folder = None
        for path in re.findall(r"`([^`]+)`", row):
            if "/" in path:
                folder = path.rstrip("/") if path.endswith("/") else path.rsplit("/", 1)[0]
                named.add(path.rstrip("/"))
            elif folder:
                named.add(f"{folder}/{path}")
    for name in named:
        assert (ROOT / name).exists(), f"the module map names {name}, which does not exist"
    for module in sorted((ROOT / "codeheal").rglob("*.py")):
        path = module.relative_to(ROOT).as_posix()
        tree = ast.parse(module.read_text(encoding="utf-8"))
        defines = any(isinstance(n, (ast.FunctionDef, ast.ClassDef)) for n in tree.body)
        if module.name != "__init__.py" or defines:  # a package's bare __init__ only imports
            assert path in named or path.rsplit("/", 1)[0] in named, f"the module map does not name {path}"


def test_the_readme_counts_contexts_fields() -> None:
    import dataclasses

    from codeheal.context import Context

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [count] = re.findall(r"`Context`, (\d+) fields", readme)
    assert int(count) == len(dataclasses.fields(Context))
