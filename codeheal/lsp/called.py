"""The project functions a failing test's line calls, found statically: the calls of the
statement at that line, their names resolved through the test module's imports (`from m import
f`, `import pkg.mod as m`, one re-export of a package's `__init__.py`) and, for a method, the
class of the object it is called on (`Cart(c).total()`, or `cart.total()` after `cart =
Cart(c)` in the test). A call that does not resolve to exactly one `def` in a file of the
project is left out: a builtin, a fixture, a name the test defines itself, a module found
twice. (Which of those files are tests is the caller's to say.)"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from codeheal.syntax import parse_code


@dataclass(frozen=True)
class Called:
    """A project function: its file, its `def` line (0-based), its name (`Class.method`)."""

    path: Path
    line: int
    name: str


@dataclass(frozen=True)
class _Module:
    path: Path


@dataclass(frozen=True)
class _Definition:
    path: Path
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    name: str
    """`Class.method` for a method."""


_Symbol = _Module | _Definition


def called_functions(root: Path, test_file: Path, line: int) -> list[Called]:
    """The project functions the statement at 0-based `line` of `test_file` calls, in the order
    they appear, each once."""
    tree = _parse(test_file)
    if tree is None:
        return []
    resolver = _Resolver(root.resolve(), test_file.resolve(), tree, line + 1)
    found = [called for call in resolver.calls() if (called := resolver.called(call)) is not None]
    return list(dict.fromkeys(found))


class _Resolver:
    def __init__(self, root: Path, test_file: Path, tree: ast.Module, number: int) -> None:
        self.root, self.test_file = root, test_file
        statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt) and _spans(n, number)]
        functions = [n for n in statements if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
        self.statement = min([n for n in statements if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)],
                             key=_length, default=None)
        self.test_function = min(functions, key=_length, default=None)
        self.resolving: set[str] = set()
        """The names whose object's class is being found (`cart = cart.copy()` ends there)."""
        self.names: dict[str, ast.stmt | ast.arg] = {}
        """Name -> what binds it where the line runs: an import, a definition, an assignment
        (in the test's function, the last before the line), a parameter."""
        for node in _bindings(tree, number):
            self.names.update(dict.fromkeys(_bound(node), node))
        if self.test_function is not None:
            arguments = self.test_function.args
            for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]:
                if arg is not None:
                    self.names[arg.arg] = arg
            for node in _bindings(self.test_function, number):
                self.names.update(dict.fromkeys(_bound(node), node))

    def calls(self) -> list[ast.Call]:
        """The calls of the line's statement: of a `with` its body too (`with pytest.raises(...):`),
        of another compound statement (`if`, `for`) its header alone."""
        if self.statement is None:
            return []
        parts: list[ast.AST] = [self.statement]
        if not isinstance(self.statement, ast.With | ast.AsyncWith) and hasattr(self.statement, "body"):
            parts = [c for c in ast.iter_child_nodes(self.statement)
                     if not isinstance(c, ast.stmt | ast.excepthandler | ast.match_case)]
        found = [n for part in parts for n in ast.walk(part) if isinstance(n, ast.Call)]
        return sorted(found, key=lambda n: (n.lineno, n.col_offset))

    def called(self, call: ast.Call) -> Called | None:
        symbol = self.symbol(call.func)
        if not isinstance(symbol, _Definition) or isinstance(symbol.node, ast.ClassDef):
            return None  # not a function of the project (a class made is its methods' business)
        return Called(symbol.path, symbol.node.lineno - 1, symbol.name)

    def symbol(self, expr: ast.expr) -> _Symbol | None:
        if isinstance(expr, ast.Name):
            return self.name(expr.id)
        if not isinstance(expr, ast.Attribute):
            return None
        owner = self.instance_class(expr.value) or self.symbol(expr.value)
        if isinstance(owner, _Module):
            return _member(self.root, owner.path, expr.attr, reexport=True)
        if isinstance(owner, _Definition) and isinstance(owner.node, ast.ClassDef):
            return _method(owner, expr.attr)
        return None

    def instance_class(self, expr: ast.expr) -> _Definition | None:
        """The project class whose instance `expr` is: `Cart(c)`, or a name the test's function
        last bound to one."""
        if isinstance(expr, ast.Name):
            bound = self.names.get(expr.id)
            if not isinstance(bound, ast.Assign) or expr.id in self.resolving:
                return None
            self.resolving.add(expr.id)
            try:
                return self.instance_class(bound.value)
            finally:
                self.resolving.discard(expr.id)
        if not isinstance(expr, ast.Call):
            return None
        made = self.symbol(expr.func)
        return made if isinstance(made, _Definition) and isinstance(made.node, ast.ClassDef) else None

    def name(self, name: str) -> _Symbol | None:
        bound = self.names.get(name)
        if isinstance(bound, ast.Import):
            alias = next(a for a in bound.names if (a.asname or a.name.split(".")[0]) == name)
            dotted = alias.name if alias.asname else alias.name.split(".")[0]
            path = _module(self.root, self.test_file, dotted, 0)
            return _Module(path) if path is not None else None
        if isinstance(bound, ast.ImportFrom):
            alias = next(a for a in bound.names if (a.asname or a.name) == name)
            path = _module(self.root, self.test_file, bound.module or "", bound.level)
            return _member(self.root, path, alias.name, reexport=True) if path is not None else None
        return None  # defined in the test itself, a parameter, a builtin: not the project's


def _bindings(scope: ast.Module | ast.FunctionDef | ast.AsyncFunctionDef, number: int) -> list[ast.stmt]:
    """The statements of `scope`'s own body (not nested functions') that bind names before
    line `number`, in order."""
    found: list[ast.stmt] = []
    pending: list[ast.stmt] = list(scope.body)
    while pending:
        node = pending.pop(0)
        if node.lineno >= number and not isinstance(scope, ast.Module):
            continue
        if isinstance(node, ast.Import | ast.ImportFrom | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                      | ast.Assign | ast.AnnAssign | ast.AugAssign | ast.With | ast.For):
            found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending[:0] = [child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)]
    return found


def _bound(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For):
        targets = [node.target]
    elif isinstance(node, ast.With):
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    return [n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)]


def _module(root: Path, importer: Path, dotted: str, level: int) -> Path | None:
    """The project file of module `dotted` (relative by `level` to `importer`'s package),
    looked for under the root, its src/ and the importer's folder; None when absent from
    them, found as two files, or outside the root."""
    parts = [p for p in dotted.split(".") if p]
    if level:
        bases = [importer.parents[level - 1]] if level <= len(importer.parents) else []
    else:
        bases = list(dict.fromkeys([root, root / "src", importer.parent]))
    found = {path.resolve() for base in bases for path in _files(base, parts) if path.is_file()}
    if len(found) != 1:
        return None
    [path] = found
    return path if root in path.parents else None


def _files(base: Path, parts: list[str]) -> list[Path]:
    package = base.joinpath(*parts)
    return [package / "__init__.py", *([package.with_suffix(".py")] if parts else [])]


def _member(root: Path, module: Path, name: str, *, reexport: bool) -> _Symbol | None:
    """`name` of `module`: a submodule of its package, a top-level `def` or class, or (when
    `reexport`) what one `from ... import name` there brings in from another project module."""
    if module.name == "__init__.py":
        submodule = _module(root, module, name, 1)
        if submodule is not None:
            return _Module(submodule)
    tree = _parse(module)
    if tree is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == name:
            return _Definition(module, node, node.name)
    if not reexport:
        return None
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    source = _module(root, module, node.module or "", node.level)
                    return _member(root, source, alias.name, reexport=False) if source is not None else None
    return None


def _method(owner: _Definition, name: str) -> _Definition | None:
    """A method `owner`'s class defines itself (not one it inherits)."""
    for node in owner.node.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return _Definition(owner.path, node, f"{owner.name}.{name}")
    return None


def _length(node: ast.stmt) -> int:
    return (node.end_lineno or node.lineno) - node.lineno


def _spans(node: ast.stmt, number: int) -> bool:
    return node.lineno <= number <= (node.end_lineno or node.lineno)


def _parse(path: Path) -> ast.Module | None:
    try:
        return parse_code(path.read_text(encoding="utf-8"), str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None
