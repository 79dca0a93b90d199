"""The benchmarks live outside the product: codeheal imports nothing of codeheal_bench, and
codeheal_bench uses only codeheal's public names (listed here); `codeheal` has no `bench`
command, `codeheal-bench` has the benchmarks."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import codeheal

ROOT = Path(__file__).resolve().parents[2]
PUBLIC = {
    "codeheal": {"Breakdown", "Context", "ExampleSource", "Feedback", "acall_results", "aevaluate", "breakdown",
                 "best_attempt", "build_graph",
                 "example_checks", "lasting_name", "resolve", "settings_of"},
    "codeheal.errors": {"CodehealError", "ConfigError", "InputError", "PromptTooLargeError"},
    "codeheal.llm": {"chat_model"},
    "codeheal.forms.project.mutations": {"DEGENERATE", "function_ingredients", "line_mutants", "local_names"},
    "codeheal.forms.project.repair_context": {"is_test_file", "project_functions"},
}
"""What the bench imports from codeheal: names codeheal exports (`codeheal.__all__`), the
documented error hierarchy, the chat-model factory `codeheal.llm` exports (the bench starts
the embedded model's server with it before K problems wait on it at once), and, for the corpus
generator alone (codeheal_bench/corpus.py), the screen's own mutation operators and how the
project form tells test files and functions apart: issue 64 draws the corpus's bugs with "the
project's own mutation code", so it must read them where they live."""


def imports(package: Path) -> list[tuple[Path, str, tuple[str, ...]]]:
    """(file, module, names) of every import statement in the package's modules."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(path, alias.name, ()) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.append((path, node.module, tuple(alias.name for alias in node.names)))
    return found


def test_codeheal_imports_nothing_of_the_bench() -> None:
    assert [(str(p), m) for p, m, _ in imports(ROOT / "codeheal") if m.split(".")[0] == "codeheal_bench"] == []


def test_the_bench_imports_only_codeheal_s_public_names() -> None:
    used = [(p.name, m, names) for p, m, names in imports(ROOT / "codeheal_bench") if m.split(".")[0] == "codeheal"]
    assert used, "the bench is built on codeheal"
    outside = [(file, module, sorted(set(names) - PUBLIC.get(module, set())))
               for file, module, names in used if not names or not set(names) <= PUBLIC.get(module, set())]
    assert outside == []
    assert PUBLIC["codeheal"] <= set(codeheal.__all__)
    for module, names in PUBLIC.items():
        loaded = __import__(module, fromlist=sorted(names))
        assert all(hasattr(loaded, name) for name in names), module


def test_codeheal_has_no_bench_command_and_codeheal_bench_has_the_benchmarks() -> None:
    product = subprocess.run([sys.executable, "-m", "codeheal", "--help"], capture_output=True, text=True, check=True)
    assert "bench" not in product.stdout
    bench = subprocess.run([sys.executable, "-m", "codeheal_bench", "--help"], capture_output=True, text=True,
                           check=True, cwd=ROOT)
    assert bench.stdout.startswith("usage: codeheal-bench")
    for benchmark in ("humaneval", "quixbugs", "seeded"):
        assert benchmark in bench.stdout
