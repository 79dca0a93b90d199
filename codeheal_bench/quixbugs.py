"""QuixBugs (Python, the 20 programs in the shared data folder) as `codeheal fix` problems.

Each problem is a small project: the buggy program, its test module, the helpers the test
imports (`node.py`, `load_testdata.py` and the program's JSON data), and the `conftest.py` that
defines the `pytest.use_correct` flag the tests read at import. The tests import the program as
`python_programs.NAME` (found from the project root, which `python -m pytest` puts on sys.path)
and their helpers by bare name (found beside the test file, pytest's rootdir-relative import).
Some tests loop forever on the buggy code: the sandbox's time limit ends them.

Upstream QuixBugs also ships the corrected programs (correct_python_programs/), which every
test module imports under `if pytest.use_correct:`. That import is never followed and nothing
is ever read from that folder: a project holding the reference would show the model the answer
(the repair context looks functions up by name across the project)."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from codeheal.errors import ConfigError

DATA_ENV = "CODEHEAL_QUIXBUGS_DIR"
CORRECT_PACKAGE = "correct_python_programs"
REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DIR = REPO_ROOT.parent / "shared" / "data" / "quixbugs"
"""Where CI keeps the data: ../shared/data/quixbugs from the repository root."""
UPSTREAM = "https://github.com/jkoppel/QuixBugs"


@dataclass(frozen=True)
class QuixProblem:
    """One QuixBugs program as a project to heal."""

    name: str
    files: dict[str, str]
    """The project: relative path -> text."""
    test_command: str
    program: str
    """The file of the function with the defect."""
    target: str
    """FILE::FUNC of the function with the defect."""
    task: str


def quixbugs_dir(override: str | Path | None = None) -> Path:
    """The QuixBugs data folder: `override`, else $CODEHEAL_QUIXBUGS_DIR, else
    ../shared/data/quixbugs from the repository root; ConfigError when it is not there."""
    chosen = Path(override or os.environ.get(DATA_ENV) or DEFAULT_DIR)
    if not (chosen / "python_programs").is_dir():
        raise ConfigError(
            f"no QuixBugs data at {chosen} (looked for python_programs/ in it): pass its folder "
            f"(--data DIR), or set {DATA_ENV}; get it with `git clone {UPSTREAM}`"
        )
    return chosen


def load_quixbugs(root: str | Path | None = None) -> list[QuixProblem]:
    """Every program in the data folder that has a test module, by name."""
    base = quixbugs_dir(root)
    names = sorted(p.stem for p in (base / "python_programs").glob("*.py") if (base / "python_testcases" / f"test_{p.name}").is_file())
    return [_problem(base, name) for name in names]


def _problem(base: Path, name: str) -> QuixProblem:
    program, test = f"python_programs/{name}.py", f"python_testcases/test_{name}.py"
    needed = {"conftest.py", program, test}
    pending = [test, program]
    while pending:
        for module in _local_imports(base, pending.pop()):
            if module not in needed:
                needed.add(module)
                pending.append(module)
    if "python_testcases/load_testdata.py" in needed:
        needed.add(f"json_testcases/{name}.json")
    files = {path: (base / path).read_text(encoding="utf-8") for path in sorted(needed) if (base / path).is_file()}
    return QuixProblem(
        name=name,
        files=files,
        test_command=f"python -m pytest -q {test}",
        program=program,
        target=f"{program}::{name}",
        task=f"The tests in {test} fail. Fix the function {name} in {program}.",
    )


def _local_imports(base: Path, path: str) -> list[str]:
    """The project files `path` imports: modules beside it, or from the project root."""
    tree = ast.parse((base / path).read_text(encoding="utf-8"))
    modules = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    modules += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module]
    here = PurePosixPath(path).parent
    found = []
    for module in modules:
        if module.split(".")[0] == CORRECT_PACKAGE:
            continue  # the reference solutions: never part of a problem
        relative = module.replace(".", "/") + ".py"
        for candidate in (str(here / relative), relative):
            if (base / candidate).is_file():
                found.append(candidate)
                break
    return found
