"""A misspelt name in a project module's import (`from calc.util import clmap`, `import
calc.utl`), which keeps the tests from being collected: the screen's cheap repairs, the failing
import with the name respelt as the nearest name the imported module binds (or the nearest
module of the project), no model call. Each is a reply that replaces the failing import line
(edits.py), tested like any repair."""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Mapping, Sequence

from codeheal.state import CheckFailure
from codeheal.syntax import parse_code

CANNOT_IMPORT = re.compile(r"cannot import name '(?P<name>\w+)' from '(?P<module>[\w.]+)'")
NO_MODULE = re.compile(r"No module named '(?P<module>[\w.]+)'")
RESPELLINGS = 3
"""Nearest names tried for one misspelt name."""


def import_repairs(
    failures: Sequence[CheckFailure], imports: Sequence[tuple[str, int, str]], files: Mapping[str, str],
) -> list[str]:
    """Replies that respell the misspelt name of a failing import: `imports` are the failing
    one-line imports (path, line, code: prompts.failing_imports), each respelt as the failures'
    messages name the missing name or module. Empty when no message names one."""
    messages = "\n".join(failure["message"] for failure in failures)
    replies = []
    for path, _, code in imports:
        for match in CANNOT_IMPORT.finditer(messages):
            names = _bound_names(files, match["module"])
            for near in difflib.get_close_matches(match["name"], names, n=RESPELLINGS, cutoff=0.6):
                replies.append(_reply(path, re.sub(rf"\b{match['name']}\b", near, code)))
        for match in NO_MODULE.finditer(messages):
            modules = _project_modules(files)
            for near in difflib.get_close_matches(match["module"], modules, n=RESPELLINGS, cutoff=0.6):
                replies.append(_reply(path, re.sub(rf"\b{re.escape(match['module'])}\b", near, code)))
    return [reply for reply in dict.fromkeys(replies) if reply]


def _reply(path: str, code: str) -> str:
    return f"```python\n# {path}\n{code}\n```\n"


def _module_file(files: Mapping[str, str], module: str) -> str | None:
    base = module.replace(".", "/")
    for path in (f"{base}.py", f"{base}/__init__.py", f"src/{base}.py", f"src/{base}/__init__.py"):
        if path in files:
            return path
    return None


def _bound_names(files: Mapping[str, str], module: str) -> list[str]:
    """The names the project module `module` binds at its top level; empty when it is not the
    project's or does not parse."""
    path = _module_file(files, module)
    if path is None:
        return []
    try:
        tree = parse_code(files[path])
    except SyntaxError:
        return []
    names = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names += [(alias.asname or alias.name).split(".")[0] for alias in node.names]
    return names


def _project_modules(files: Mapping[str, str]) -> list[str]:
    """The project's modules by dotted name (a package by its own)."""
    modules = []
    for path in files:
        if path.endswith(".py"):
            dotted = path.removeprefix("src/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            modules.append(dotted)
    return modules
