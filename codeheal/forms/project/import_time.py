"""What a module's code runs when it is imported, apart from inert pieces: the measure of an
edit's module-level effects. A function repair or a whole-file rewrite may change what runs
when its functions are called, never what runs at import (a decorator, a default value, an
annotation, a module or class statement) beyond what the original already ran there: a
"repair" that patches the test runner at import is refused, whatever it is called."""

from __future__ import annotations

import ast
from collections import Counter

from codeheal.syntax import parse_code

GENERIC_BUILTINS = frozenset({"list", "dict", "tuple", "set", "frozenset", "type"})
CLASS_HOOKS = frozenset({"__init_subclass__", "__set_name__", "__prepare__", "__mro_entries__", "__class_getitem__"})
"""Methods Python calls while a class statement runs (or a class is subscripted), wherever they
are defined: each counts whole, as code run at import."""


def def_time(function: ast.FunctionDef | ast.AsyncFunctionDef) -> Counter[str]:
    """What defining `function` evaluates that is not inert: its decorators (always: each is
    a call), and its default values and annotations that are not."""
    args = function.args
    annotations = [a.annotation for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg)
                   if a is not None and a.annotation is not None]
    values = [*args.defaults, *(d for d in args.kw_defaults if d is not None), *annotations,
              *([function.returns] if function.returns is not None else [])]
    found = Counter(f"@{ast.unparse(d)}" for d in function.decorator_list)
    found.update(ast.unparse(v) for v in values if not _inert(v))
    return found


def import_time(code: str) -> Counter[str]:
    """What importing a module of `code` runs that is not inert, as normalized source: every
    module and class statement other than a definition, an import, a docstring, a main guard
    or a name bound to an inert value, and what each definition evaluates (def_time). A class
    statement with bases, keywords (`metaclass=`) or decorators counts whole: creating it may
    call a metaclass, a base's `__init_subclass__` or a decorator with the class, so its body is
    code run at import too; so does a class-creation hook (CLASS_HOOKS) wherever it is."""
    found: Counter[str] = Counter()
    _statements(parse_code(code).body, found)
    return found


def added(original: Counter[str], new: Counter[str]) -> list[str]:
    """What `new` runs at import that `original` does not."""
    return sorted((new - original).elements())


def _statements(body: list[ast.stmt], found: Counter[str]) -> None:
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name in CLASS_HOOKS:
                found[ast.unparse(statement)] += 1
            else:
                found.update(def_time(statement))
        elif isinstance(statement, ast.ClassDef):
            if statement.bases or statement.keywords or statement.decorator_list:
                found[ast.unparse(statement)] += 1
            else:
                _statements(statement.body, found)
        elif isinstance(statement, (ast.Import, ast.ImportFrom, ast.Pass)) or _docstring(statement):
            continue
        elif isinstance(statement, ast.If) and is_main_guard(statement.test) and not statement.orelse:
            continue
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and _inert_binding(statement):
            continue
        else:
            found[ast.unparse(statement)] += 1


def is_main_guard(test: ast.expr) -> bool:
    """Whether an `if`'s test is exactly `__name__ == "__main__"` (either way round): its body
    runs only as a script, never at import (`!=`, `or`, any other form runs)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name("__name__", ast.Load())), ast.dump(ast.Constant("__main__"))}


def _docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _inert_binding(statement: ast.Assign | ast.AnnAssign) -> bool:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    value_ok = statement.value is None or _inert(statement.value)
    annotation_ok = isinstance(statement, ast.Assign) or _inert(statement.annotation)
    return value_ok and annotation_ok and all(isinstance(t, ast.Name) for t in targets)


def _inert(node: ast.expr) -> bool:
    """An expression whose evaluation runs no code of the project's: a literal, a name, a
    dotted name, a builtin generic of inert parts (`list[int]`), an `X | None` of them."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _inert(node.value) and isinstance(node.value, (ast.Name, ast.Attribute))
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_inert(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _inert(k) and _inert(v) for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, ast.Subscript):
        generic = (isinstance(node.value, ast.Name) and node.value.id in GENERIC_BUILTINS) or (
            isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name)
            and node.value.value.id == "typing")
        return generic and _inert(node.slice)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _inert(node.left) and _inert(node.right)
    return False
