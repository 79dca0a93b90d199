"""The benchmarks live outside the product: codeheal imports nothing of codeheal_bench, and
codeheal_bench uses only codeheal's public names (listed here); `codeheal` has no `bench`
command, `codeheal-bench` has the benchmarks. The scripts beside the package
(codeheal_bench/scripts/) measure codeheal itself: those that read its internals are named here
with what they measure, the package never imports them, and the distribution does not ship them."""

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

SCRIPTS = ROOT / "codeheal_bench" / "scripts"
INTERNALS = {
    "concurrency.py": "runs on one event loop through the batch's own item type",
    "copy_time.py": "the project snapshot and the sandbox's job, timed without the loop",
    "extraction_loss.py": "codeheal's own reading of a reply, against lenient readings",
    "first_attempt.py": "prompt variants of the first attempt, built from the form's prompt parts",
    "fixed_test_cost.py": "the project form's test job, run alone",
    "humaneval_models.py": "the presets' default per model, beside the runs that chose it",
    "local_model_speed.py": "the embedded server's start and speed",
    "render_docs.py": "the settings table the docs render from Context's fields",
    "resident_server.py": "the embedded model's file, for the server it measures",
    "retry_prompt.py": "the actor's retry prompt with and without the failed code",
    "sandbox_overhead.py": "the evaluator's job against bare pytest in the sandbox",
    "screen_time.py": "sandbox jobs counted under the mutation screen",
    "server_settings.py": "llama.cpp server settings on codeheal's own prompts",
    "thread_choice.py": "the embedded server's thread choice against 1 and one per core, quiet and busy",
    "vote_ceiling.py": "candidates judged in the sandbox, as the loop's choice would",
}
"""The scripts that read codeheal's internals, and what each measures."""


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
    used = [(p.name, m, names) for p, m, names in imports(ROOT / "codeheal_bench")
            if m.split(".")[0] == "codeheal" and not p.is_relative_to(SCRIPTS)]
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


def test_only_the_named_scripts_read_codeheal_s_internals_and_the_package_never_imports_a_script() -> None:
    public = {**PUBLIC, "codeheal": set(codeheal.__all__)}
    internal = {p.name for p, m, names in imports(SCRIPTS) if m.split(".")[0] == "codeheal"
                and (not names or not set(names) <= public.get(m, set()))}
    assert internal == set(INTERNALS)
    scripts = {path.stem for path in SCRIPTS.glob("*.py")}
    package = [(p.name, m) for p, m, _ in imports(ROOT / "codeheal_bench") if not p.is_relative_to(SCRIPTS)
               and (m.split(".")[0] in scripts or m.startswith("codeheal_bench.scripts"))]
    assert package == []
    distribution = (ROOT / "codeheal_bench" / "pyproject.toml").read_text(encoding="utf-8")
    assert 'packages = ["codeheal_bench"]' in distribution  # the package alone: scripts/ is not in the wheel
