"""A static scan of the candidate, before it runs, for reaching into the test harness.

The verdict no longer rests on the candidate's process (verdict.py, supervisor.py): a skip,
an early exit, a patched runner or forged report lines fail on their own. The scan is a
speed bump for what is left, the ways to read the report plugin's memory or to import the
harness itself: importing pytest, its plugin system or codeheal's report plugin (by any
literal spelling), walking stack frames or the heap, tracing, reaching other modules through
`sys.modules`, naming the report channel, and ending the process while being imported.
Ordinary code passes: `import builtins`, `import atexit`, `sys.modules[__name__]`,
`inspect.stack()`, the word "pytest" in a string, `os._exit` in a forked child. The project
form also refuses comparison methods that ignore their argument (`lying_dunders`). Users
whose code legitimately needs one of these turn the scan off (Context.tamper_scan);
docs/security.md says what it cannot catch."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from codeheal.syntax import parse_code

HARNESS_MODULES = frozenset({"pytest", "_pytest", "pluggy", "codeheal_report", "codeheal_supervisor", "codeheal_plain",
                              "codeheal_clock", "codeheal_proxy", "codeheal_candidate"})
"""Modules whose import alone is flagged: the runner, its plugin system, codeheal's report
plugin, supervisor and the module form's candidate proxy."""
FRAME_ATTRIBUTES = frozenset({
    "modules", "_getframe", "settrace", "setprofile", "addaudithook", "currentframe",
    "f_back", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
    "get_referrers", "get_objects",
})
"""Attributes that reach the harness's modules, frames or objects."""
ATTRIBUTE_OWNERS = {"modules": "sys", "get_objects": "gc", "get_referrers": "gc"}
"""For common attribute names, the module they are flagged on (`sys.modules`, not `x.modules`)."""
IMPORTERS = frozenset({"__import__", "import_module"})
EXITS = frozenset({"exit", "quit", "_exit"})
SECRET_STRINGS = ("CODEHEAL_", "/proc/self/fd", "/dev/fd", "codeheal_report")
COMPARISON_DUNDERS = {"__eq__": 1, "__ne__": 1, "__hash__": 0, "__bool__": 0}
"""Methods whose result must depend on the named parameter (1: the other value, 0: self)."""
SWITCH_HINT = "if the code legitimately needs this, turn the scan off (tamper_scan=False)"


@dataclass(frozen=True)
class Finding:
    """One reach into the harness: where, and what."""

    line: int
    what: str


def scan(code: str) -> list[Finding]:
    """Findings in `code` (which must parse), in line order."""
    tree = parse_code(code)
    own_module = _own_module_lookups(tree)
    findings = [finding for node in ast.walk(tree) if id(node) not in own_module and (finding := _check(node))]
    findings += _exits_at_import(tree.body)
    return sorted(set(findings), key=lambda f: (f.line, f.what))


def lying_dunders(code: str) -> list[Finding]:
    """Comparison methods whose result ignores what they compare: an `__eq__` or `__ne__`
    that never looks at the other value, a `__hash__` or `__bool__` that never looks at
    self. Such a value would agree with any expected value in the project's asserts."""
    findings = []
    for node in ast.walk(parse_code(code)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name not in COMPARISON_DUNDERS:
            continue
        params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
        index = COMPARISON_DUNDERS[node.name]
        used = {n.id for statement in node.body for n in ast.walk(statement) if isinstance(n, ast.Name)}
        if index >= len(params) or params[index] not in used:
            whose = "the value it is compared with" if index else "the object"
            findings.append(Finding(node.lineno, f"{node.name} ignores {whose}: it would agree with any "
                                    "expected value; compare the object's own data"))
    return findings


def describe(findings: list[Finding]) -> str:
    """The error message of a candidate the scan rejected."""
    listed = "; ".join(f"line {f.line}: {f.what}" for f in findings[:5])
    return f"harness tampering: solution.py {listed} (the tests' harness is off limits; {SWITCH_HINT})"


def _own_module_lookups(tree: ast.Module) -> set[int]:
    """`sys.modules[__name__]` (a module reaching itself): the attribute nodes to leave alone."""
    return {
        id(node.value) for node in ast.walk(tree)
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
        and node.value.attr == "modules" and isinstance(node.slice, ast.Name) and node.slice.id == "__name__"
    }


def _check(node: ast.AST) -> Finding | None:
    line = getattr(node, "lineno", 0)
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] in HARNESS_MODULES:
                return Finding(line, f"imports {alias.name}")
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        if node.module.split(".")[0] in HARNESS_MODULES:
            return Finding(line, f"imports from {node.module}")
        if node.module == "sys" and any(a.name in FRAME_ATTRIBUTES for a in node.names):
            return Finding(line, "imports a harness hook from sys")
    if isinstance(node, ast.Call) and _importer(node.func) and node.args:
        first = node.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.split(".")[0] in HARNESS_MODULES:
            return Finding(line, f"names the module {first.value!r}")
    if isinstance(node, ast.Attribute) and node.attr in FRAME_ATTRIBUTES:
        owner = ATTRIBUTE_OWNERS.get(node.attr)
        if owner is None or (isinstance(node.value, ast.Name) and node.value.id == owner):
            return Finding(line, f"uses {_dotted(node)}")
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        for secret in SECRET_STRINGS:
            if secret in node.value:
                return Finding(line, f"refers to {secret!r}")
    return None


def _importer(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id in IMPORTERS) or (
        isinstance(func, ast.Attribute) and func.attr in IMPORTERS
    )


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
