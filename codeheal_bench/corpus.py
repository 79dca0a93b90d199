"""A corpus of one-line bugs drawn by rule from real libraries, not chosen by hand (issue 64).

Nine small pure-Python libraries from PyPI whose sdists ship their tests and whose suites run
in seconds on codeheal's own environment (LIBRARIES; none of them toolz or boltons, which the
seeded bugs use), each pinned by version and SHA-256 and fetched with pip into a cache at run
time (seeded.fetch_sdist), never committed.

The rule (`draw_cases`), fixed before any run:
1. Candidates: every statement line of every top-level function and method of the library's
   own modules (not its tests) that is unique in its file, with each one-line mutation the
   project's own mutation code writes for it (forms/project/mutations.line_mutants), the
   degenerate class left out (it is no realistic bug).
2. The candidates are shuffled with a generator seeded by the library's name and DRAW_SEED,
   and tried in that order, at most one per function, until PER_LIBRARY are kept or
   TRIES_PER_LIBRARY were tried.
3. A candidate is kept when the library's whole suite, run with it, fails in exactly one or
   two test files (and passes without it): those files are the case's test command, as a user
   who saw them fail would name them. A mutant that fails more files, none, or makes the
   suite run past SUITE_TIMEOUT_S is dropped.
The bias this rule carries is named, not hidden: the mutations are the screen's own operator
classes, so the mutation screen can reach every one of these bugs by construction; what the
corpus measures beyond the screen is the regression check and the model.

The split (`half_of`), written down before any run: a case is in the tuning half when the
first byte of the SHA-256 of its name is even, else in the report half. Every decision is made
on the tuning half; the report half is run once, at the end.

The cases are written to benchmarks/corpus/cases.json (committed) by `codeheal-bench corpus
--draw`; the sdists are fetched again from the pins by any run."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

from codeheal.forms.project.mutations import DEGENERATE, function_ingredients, line_mutants, local_names
from codeheal.forms.project.repair_context import is_test_file, project_functions

from codeheal_bench.seeded import Library, SeededBug, fetch_sdist, library_files

DRAW_SEED = 64
PER_LIBRARY = 8
TRIES_PER_LIBRARY = 60
SUITE_TIMEOUT_S = 60.0
CASES_FILE = Path(__file__).resolve().parent.parent / "benchmarks" / "corpus" / "cases.json"
CLASS_NAMES = ("boundary", "constant", "arithmetic", "logic", "relation", "off by one", "arguments", "twin",
               "dropped", "variable", "ingredient", "degenerate")
"""The mutation classes by rank (forms/project/mutations.py), as a case's kind."""
PLAIN = "-o addopts="
"""pytest options every command of the corpus carries: the libraries' own addopts name
coverage plugins codeheal's environment does not have."""
SRC = f"{PLAIN} -o pythonpath=src"
"""And for a src layout: the package imported from src/ (the copy is not installed)."""


@dataclass(frozen=True)
class CorpusLibrary(Library):
    """A library of the corpus: its pytest options, beside what a seeded library has."""

    options: str = PLAIN


def _library(name: str, version: str, sha256: str, keep: tuple[str, ...], tests: str, options: str) -> CorpusLibrary:
    return CorpusLibrary(name, version, sha256, keep, f"python -m pytest -q {options} {tests}", options)


LIBRARIES = {library.name: library for library in (
    _library("cachetools", "8.0.3", "79245d0d90464e29355f13658cd769e57d98ed06242d3c6fbd71796ca0938ef9",
             ("src", "tests", "pyproject.toml", "setup.cfg", "LICENSE"), "tests", SRC),
    _library("inflection", "0.5.1", "1a29730d366e996aaacffb2f1f1cb9593dc38e2ddd30c91250c6dde09ea9b417",
             ("inflection", "test_inflection.py", "setup.cfg", "LICENSE"), "test_inflection.py", PLAIN),
    _library("parse", "1.22.4", "706d458feed5a81b02768d3156e8070baf6cee7d150a3a3c0cd43101a875c3b5",
             ("parse", "tests", "pyproject.toml", "LICENSE"), "tests", PLAIN),
    _library("pathspec", "1.1.1", "17db5ecd524104a120e173814c90367a96a98d07c45b2e10c2f3919fff91bf5a",
             ("pathspec", "tests", "pyproject.toml", "LICENSE"), "tests", PLAIN),
    _library("semver", "3.2.0", "adf2c822d2d8908a1dce0121da7da6511851fbd33080e61da8d2ba1e0677e8f3",
             ("src", "tests", "pyproject.toml", "setup.cfg", "LICENSE.txt"), "tests", SRC),
    _library("six", "1.17.0", "ff70335d468e7eb6ec65b95b99d3a2836546063f63acc5171de367e834932a81",
             ("six.py", "test_six.py", "setup.cfg", "LICENSE"), "test_six.py", PLAIN),
    _library("tabulate", "0.10.0", "e2cfde8f79420f6deeffdeda9aaec3b6bc5abce947655d17ac662b126e48a60d",
             ("tabulate", "test", "pyproject.toml", "LICENSE"), "test", PLAIN),
    _library("termcolor", "3.3.0", "348871ca648ec6a9a983a13ab626c0acce02f515b9e1983332b17af7979521c5",
             ("src", "tests", "pyproject.toml", "LICENSE.txt"), "tests", SRC),
    _library("webcolors", "25.10.0", "62abae86504f66d0f6364c2a8520de4a0c47b80c03fc3a5f1815fedbef7c19bf",
             ("src", "tests", "pyproject.toml", "LICENSE"), "tests", SRC),
)}


@dataclass(frozen=True)
class CorpusCase(SeededBug):
    """A drawn bug: its test command names the one or two test files that caught it."""

    test_files: tuple[str, ...] = ()
    options: str = PLAIN
    function: str = ""
    line_number: int = 0

    @property
    def test_command(self) -> str:
        return f"python -m pytest -q {self.options} {' '.join(self.test_files)}"


def half_of(name: str) -> str:
    """The half a case is in, by the rule written down before any run: "tuning" when the first
    byte of the SHA-256 of its name is even, else "report"."""
    return "tuning" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "report"


def load_cases(path: Path = CASES_FILE, half: str | None = None) -> list[CorpusCase]:
    """The committed cases (of one half, when given)."""
    cases = [CorpusCase(**{**{k: v for k, v in item.items() if k != "half"}, "test_files": tuple(item["test_files"])})
             for item in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    return [case for case in cases if half is None or half_of(case.name) == half]


def draw_cases(cache: Path | None = None, libraries: Mapping[str, CorpusLibrary] = LIBRARIES,
               log=print) -> list[CorpusCase]:
    """The corpus, drawn by the rule of the module's docstring from each library's sdist."""
    cases = []
    for library in libraries.values():
        files = library_files(library, fetch_sdist(library, cache))
        failing = failing_test_files(files, library)
        if failing is None or failing:
            raise RuntimeError(f"{library.name}: the suite does not pass as the library is ({failing})")
        kept = draw_library(library, files, log)
        log(f"{library.name}: kept {len(kept)}")
        cases += kept
    return cases


def draw_library(library: CorpusLibrary, files: Mapping[str, str], log=print) -> list[CorpusCase]:
    """The cases of one library (rule 1 to 3)."""
    candidates = list(_candidates(files))
    random.Random(f"{DRAW_SEED}:{library.name}").shuffle(candidates)
    kept: list[CorpusCase] = []
    used: set[tuple[str, str]] = set()
    for tried, (path, function, number, original, mutant, rank) in enumerate(candidates):
        if len(kept) == PER_LIBRARY or tried == TRIES_PER_LIBRARY:
            break
        if (path, function) in used:
            continue
        lines = files[path].split("\n")
        indent = original[: len(original) - len(original.lstrip())]
        mutated = {**files, path: "\n".join([*lines[: number - 1], indent + mutant, *lines[number:]])}
        failing = failing_test_files(mutated, library)
        log(f"  {path}:{number} {mutant.strip()[:60]!r}: {failing}")
        if failing is None or not 1 <= len(failing) <= 2:
            continue
        used.add((path, function))
        kept.append(CorpusCase(
            name=f"{library.name}-{function}-{number}", library=library.name, kind=CLASS_NAMES[rank], file=path,
            line=original, seeded=indent + mutant, test_file=failing[0], test_files=tuple(failing),
            options=library.options, function=function, line_number=number,
        ))
    return kept


def _candidates(files: Mapping[str, str]) -> Iterator[tuple[str, str, int, str, str, int]]:
    """(path, function, line number, line, mutated line, class) of every mutation of rule 1."""
    for path in sorted(files):
        if not path.endswith(".py") or is_test_file(path) or path.endswith("setup.py"):
            continue
        text = files[path]
        lines = text.split("\n")
        for owner, function in project_functions(text):
            names, ingredients = local_names(function), function_ingredients(function, text)
            for number in sorted(_statement_lines(function)):
                original = lines[number - 1]
                if lines.count(original) != 1 or not original.strip() or original.strip().startswith("#"):
                    continue
                for mutant in line_mutants(original.strip(), names, ingredients):
                    if mutant.rank != DEGENERATE:
                        yield path, f"{owner}.{function.name}" if owner else function.name, number, original, \
                            mutant.line, mutant.rank


def _statement_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[int]:
    """The first lines of the simple statements and the headers of the compound ones in the
    function's body (its docstring and nested definitions left out)."""
    found = set()
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    todo = list(body)
    while todo:
        statement = todo.pop()
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        if statement.lineno == statement.end_lineno or isinstance(statement, ast.If | ast.For | ast.While | ast.With):
            found.add(statement.lineno)
        for field in ("body", "orelse", "finalbody"):
            todo += getattr(statement, field, [])
        for handler in getattr(statement, "handlers", []):
            todo += handler.body
    return found


FAILED_LINE = re.compile(r"^(?:FAILED|ERROR) ([^\s:]+\.py)")


def failing_test_files(files: Mapping[str, str], library: CorpusLibrary) -> list[str] | None:
    """The test files of the library's suite that fail on `files` (run with the interpreter this
    runs on, in a temporary folder, with plugin autoload off as codeheal's own environment
    runs it); None when the suite ran past SUITE_TIMEOUT_S or reported nothing."""
    with tempfile.TemporaryDirectory(prefix=f"corpus-{library.name}-") as folder:
        for name, text in files.items():
            (Path(folder) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(folder) / name).write_text(text, encoding="utf-8")
        # a test file that does not load must not stop the others: each file's failures count
        argv = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfE", "-q", "--continue-on-collection-errors",
                *library.suite.split()[4:]]
        try:
            run = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=SUITE_TIMEOUT_S,
                                 env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}, check=False)
        except subprocess.TimeoutExpired:
            return None
    if run.returncode not in (0, 1, 2):
        return None
    failing = sorted({match[1] for line in run.stdout.splitlines() if (match := FAILED_LINE.match(line))})
    return failing if failing or run.returncode == 0 else None


def write_cases(cases: list[CorpusCase], path: Path = CASES_FILE) -> None:
    """benchmarks/corpus/cases.json: the libraries' pins, the rule's constants and the cases with their half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "rule": {"draw_seed": DRAW_SEED, "per_library": PER_LIBRARY, "tries_per_library": TRIES_PER_LIBRARY,
                 "split": "tuning when sha256(name)[0] is even, else report"},
        "libraries": {name: asdict(library) for name, library in LIBRARIES.items()},
        "halves": {half: sum(half_of(c.name) == half for c in cases) for half in ("tuning", "report")},
        "cases": [{**asdict(case), "half": half_of(case.name)} for case in cases],
    }, indent=1) + "\n", encoding="utf-8")
