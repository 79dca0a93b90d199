"""A static scan of the candidate, before it runs, for reaching into the test harness.

The tests run in the candidate's process, so code that imports pytest, edits sys.modules or
builtins, exits while being imported, registers exit hooks or walks stack frames can make
wrong code look right. Such code is a failed attempt with a clear message; users whose code
legitimately needs one of these turn the scan off (Context.tamper_scan). A scan is a
speed bump, not a proof: docs/security.md says what it cannot catch."""

from __future__ import annotations

import ast
from dataclasses import dataclass

HARNESS_MODULES = frozenset({"pytest", "_pytest", "pluggy", "codeheal_report", "atexit", "builtins"})
"""Modules whose import alone is flagged: the runner, its plugin system, codeheal's report
plugin, exit hooks, the builtins every test resolves names through."""
FRAME_ATTRIBUTES = frozenset({
    "modules", "_getframe", "settrace", "setprofile", "addaudithook", "currentframe", "stack",
    "f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
    "get_referrers", "get_objects", "_exit",
})
"""Attributes that reach the harness's modules, frames or objects, or end the process."""
ATTRIBUTE_OWNERS = {"modules": "sys", "stack": "inspect", "_exit": "os", "get_objects": "gc", "get_referrers": "gc"}
"""For common attribute names, the module they are flagged on (`sys.modules`, not `x.modules`)."""
EXITS = frozenset({"exit", "quit", "_exit"})
SECRET_STRINGS = ("CODEHEAL_", "/proc/self/fd", "/dev/fd", "__builtins__")
SWITCH_HINT = "if the code legitimately needs this, turn the scan off (tamper_scan=False)"


@dataclass(frozen=True)
class Finding:
    """One reach into the harness: where, and what."""

    line: int
    what: str


def scan(code: str) -> list[Finding]:
    """Findings in `code` (which must parse), in line order."""
    tree = ast.parse(code)
    findings = [finding for node in ast.walk(tree) if (finding := _check(node))]
    findings += _exits_at_import(tree.body)
    return sorted(set(findings), key=lambda f: (f.line, f.what))


def describe(findings: list[Finding]) -> str:
    """The error message of a candidate the scan rejected."""
    listed = "; ".join(f"line {f.line}: {f.what}" for f in findings[:5])
    return f"harness tampering: solution.py {listed} (the tests' harness is off limits; {SWITCH_HINT})"


def _check(node: ast.AST) -> Finding | None:
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] in HARNESS_MODULES:
                return Finding(line, f"imports {alias.name}")
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module.split(".")[0] in HARNESS_MODULES:
            return Finding(line, f"imports from {node.module}")
        if node.module == "os" and any(a.name == "_exit" for a in node.names):
            return Finding(line, "imports os._exit")
        if node.module == "sys" and any(a.name in FRAME_ATTRIBUTES for a in node.names):
            return Finding(line, "imports a harness hook from sys")
    if isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRIBUTES:
        owner = ATTRIBUTE_OWNERS.get(node.attr)
        if owner is None or (isinstance(node.value, ast.Name) and node.value.id == owner):
            return Finding(line, f"uses {_dotted(node)}")
    if isinstance(node, ast.Name) and node.id == "__builtins__":
        return Finding(line, "uses __builtins__")
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        for secret in SECRET_STRINGS:
            if secret in node.value:
                return Finding(line, f"refers to {secret!r}")
        if node.value.split(".")[0] in HARNESS_MODULES:
            return Finding(line, f"names the module {node.value!r}")
    return None


def _exits_at_import(body: list[ast.stmt]) -> list[Finding]:
    """Calls that end the process, or `raise SystemExit`, in statements run on import (not in
    functions or classes, nor under `if __name__ == "__main__":`)."""
    found = []
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or _main_guard(statement):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and _exit_name(node.func):
                found.append(Finding(node.lineno, f"calls {_dotted(node.func)}() while being imported"))
            if isinstance(node, ast.Raise) and node.exc is not None and "SystemExit" in ast.unparse(node.exc):
                found.append(Finding(node.lineno, "raises SystemExit while being imported"))
    return found


def _exit_name(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in EXITS
    return isinstance(func, ast.Attribute) and func.attr in EXITS


def _main_guard(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.If) and "__main__" in ast.unparse(statement.test)


def _dotted(node: ast.expr) -> str:
    return ast.unparse(node)
