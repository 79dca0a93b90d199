"""What a static checker sees of the project, compared before and after a change (`fix
--check`): a heal never makes the checker see less of the code than before. Compared through
the AST of each changed file, never its text: the comments that turn a checker off (read as
comment tokens, NFKC-normalised), the annotations of every function (none removed, none
newly `Any` or `object`, no new unannotated parameter or function: mypy skips the body of
an unannotated function, and an unannotated value is `Any`), and the names, resolved
through the module's imports, that hide code or types from a checker (`cast`, `Any`,
`no_type_check`, `TYPE_CHECKING`, `getattr`, `globals`, `eval`, `sys.modules`, a
`__getattr__`, ...), and code the checker skips as unreachable by its shape. A change may
only touch the project's existing `.py` files: a stub, a `py.typed` or the checker's
configuration changes what the checker reads, not the code."""

from __future__ import annotations

import ast
import builtins
import io
import re
import tokenize
import unicodedata
from collections import Counter
from collections.abc import Iterator, Mapping

SILENCER = re.compile(r"#\s*(?:type\s*:|pyright\s*:|noqa|mypy\s*:|ruff\s*:|flake8\s*:|pylint\s*:|pyre-)")
"""Comments a checker reads as an instruction (an ignore, a type comment, a file's mode),
matched on the comment NFKC-normalised and lower-cased."""
HIDING = frozenset({
    *(f"{module}.{name}" for module in ("typing", "typing_extensions") for name in (
        "Any", "cast", "no_type_check", "no_type_check_decorator", "TYPE_CHECKING", "NoReturn", "Never",
        "assert_never")),
    *(f"builtins.{name}" for name in (
        "getattr", "setattr", "delattr", "globals", "locals", "vars", "eval", "exec", "compile", "__import__")),
    "sys.modules", "sys.platform", "sys.version_info", "importlib.import_module",
})
"""What hides code or its types from a checker: a value made `Any`, a body skipped, a branch
only the checker takes (or never takes), an attribute or name looked up by string."""
DYNAMIC_LOOKUP = frozenset({"__getattr__", "__getattribute__"})
"""A function by these names makes every attribute of its class (or module) exist."""
SELF = frozenset({"self", "cls", "mcs"})
PLAIN_DECORATORS = frozenset({"staticmethod", "classmethod", "property"})
"""Decorators a change may add: any other may give the function a type the checker cannot see
through (an untyped decorator makes it `Any` to its callers)."""


def silenced(before: Mapping[str, str], after: Mapping[str, str]) -> str | None:
    """Why the change `after` (the changed files, path -> text) lets the checker see less of
    the project `before` (its files) than before; None when it does not."""
    for path, text in after.items():
        if path not in before or not path.endswith(".py"):
            return (f"the change writes {path}, which is not one of the project's Python modules: a stub, "
                    "py.typed or the checker's configuration changes what the checker reads; fix the code")
        why = _file_lost(before[path], text)
        if why is not None:
            return f"{path}: {why}; fix what the checker reports, never hide code from it"
    return None


def _file_lost(before: str, after: str) -> str | None:
    comments = Counter(_silencers(after)) - Counter(_silencers(before))
    if comments:
        return f"it adds the comment `{next(iter(comments))}`"
    try:
        old, new = ast.parse(before), ast.parse(after)
    except SyntaxError:
        return None  # a syntax slip repaired (only around it), or made: the checker says so
    names = Counter(_hiding(new)) - Counter(_hiding(old))
    names += Counter(_unreachable(new)) - Counter(_unreachable(old))
    if names:
        return f"it adds {next(iter(names))}, which hides code or types from the checker"
    return _annotations_lost(dict(_functions(old)), dict(_functions(new)))


def _silencers(source: str) -> Iterator[str]:
    """Each comment a checker reads as an instruction, normalised (a string that holds one is
    not a comment); in a module that does not tokenize (a syntax slip), each `#` of its text
    that starts one."""
    try:
        comments = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                    if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        comments = [source[start:].partition("\n")[0] for start in range(len(source)) if source[start] == "#"]
    for comment in comments:
        normal = unicodedata.normalize("NFKC", comment).lower()
        if match := SILENCER.search(normal):
            yield " ".join(normal[match.start():].split())


def _hiding(module: ast.Module) -> Iterator[str]:
    """The HIDING names the module uses, resolved through its imports (a string annotation
    read as the expression it holds), each DYNAMIC_LOOKUP function it defines, and `object`
    in an annotation."""
    imported, bound = _imports(module)
    for node in ast.walk(module):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in DYNAMIC_LOOKUP:
            yield f"`def {node.name}`"
        annotations = (_annotations(node) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
                       else [node.annotation] if isinstance(node, ast.AnnAssign) else [])
        for annotation in annotations:
            for name, quoted in _names_in(annotation, imported, bound):
                if name == "builtins.object":
                    yield "`object` in an annotation"
                elif name in HIDING and quoted:  # the walk below sees the unquoted ones
                    yield f"`{name}`"
        if isinstance(node, ast.Name | ast.Attribute):
            name = _resolved(node, imported, bound)
            if name in HIDING:
                yield f"`{name}`"


def _unreachable(module: ast.Module) -> Iterator[str]:
    """Code a checker skips as unreachable, by its shape: a statement after a `return`,
    `raise`, `continue` or `break` in the same block, a branch under a constant false test."""
    for node in ast.walk(module):
        if isinstance(node, ast.If | ast.While | ast.IfExp | ast.Assert) and _always_false(node.test):
            yield f"`{ast.unparse(node.test)}` as a condition"
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list):
                ends = [i for i, statement in enumerate(block)
                        if isinstance(statement, ast.Return | ast.Raise | ast.Continue | ast.Break)]
                if ends and ends[0] < len(block) - 1:
                    yield f"code after `{ast.unparse(block[ends[0]]).split()[0]}`"


def _always_false(test: ast.expr) -> bool:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Constant) and bool(test.operand.value)
    return isinstance(test, ast.Constant) and not test.value


def _imports(module: ast.Module) -> tuple[dict[str, str], set[str]]:
    """The module's imported names (bound name -> qualified name) and every other name it binds."""
    imported: dict[str, str] = {}
    bound: set[str] = set()
    for node in ast.walk(module):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imported[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name == "*":  # the hiding names it may bind
                    imported.update({h.rsplit(".", 1)[1]: h for h in HIDING if h.rsplit(".", 1)[0] == node.module})
                else:
                    imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return imported, bound - imported.keys()


def _resolved(node: ast.expr, imported: Mapping[str, str], bound: set[str]) -> str | None:
    """`node`'s qualified name (`t.cast` after `import typing as t`: `typing.cast`; a builtin
    the module does not rebind: `builtins.NAME`); None for anything else."""
    if isinstance(node, ast.Attribute):
        owner = _resolved(node.value, imported, bound)
        return f"{owner}.{node.attr}" if owner is not None else None
    if isinstance(node, ast.Name):
        if node.id in imported:
            return imported[node.id]
        if node.id not in bound and hasattr(builtins, node.id):
            return f"builtins.{node.id}"
    return None


def _names_in(annotation: ast.expr, imported: Mapping[str, str], bound: set[str], quoted: bool = False,
              ) -> Iterator[tuple[str, bool]]:
    """The qualified names an annotation uses, each with whether it is inside a string (a
    string annotation is read as the expression it holds)."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value.strip(), mode="eval").body
            except SyntaxError:
                continue
            yield from _names_in(inner, imported, bound, quoted=True)
        name = _resolved(node, imported, bound) if isinstance(node, ast.Name | ast.Attribute) else None
        if name is not None:
            yield name, quoted


Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(module: ast.Module) -> Iterator[tuple[str, Function]]:
    """Every function and method, nested ones too, by qualified name (`Cart.total`, `f.g`)."""
    def walk(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, Function]]:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield prefix + node.name, node
                yield from walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.ClassDef):
                yield from walk(node.body, f"{prefix}{node.name}.")
            else:
                for child in ast.iter_child_nodes(node):  # an `if`/`try` block's definitions
                    if isinstance(child, ast.stmt):
                        yield from walk([child], prefix)
    return walk(module.body, "")


def _parameters(node: Function) -> dict[str, ast.expr | None]:
    """Each parameter's annotation (None: unannotated), `self`/`cls` first parameters left out."""
    arguments = node.args
    every = [*arguments.posonlyargs, *arguments.args, *([arguments.vararg] if arguments.vararg else []),
             *arguments.kwonlyargs, *([arguments.kwarg] if arguments.kwarg else [])]
    if every and every[0].arg in SELF and every[0].annotation is None:
        every = every[1:]
    return {argument.arg: argument.annotation for argument in every}


def _annotations(node: Function) -> list[ast.expr]:
    return [a for a in [*_parameters(node).values(), node.returns] if a is not None]


def _annotations_lost(before: Mapping[str, Function], after: Mapping[str, Function]) -> str | None:
    """An annotation removed, a parameter added without one, a new function not fully
    annotated, or a decorator added (what mypy would not check, or would see as `Any`)."""
    for name, node in after.items():
        decorators = Counter(ast.unparse(d) for d in node.decorator_list)
        if name in before:
            decorators -= Counter(ast.unparse(d) for d in before[name].decorator_list)
        new = [d for d in decorators if d not in PLAIN_DECORATORS]
        if new:
            return f"it adds the decorator `@{new[0]}` to `{name}`, which may change the type the checker sees"
        parameters = _parameters(node)
        old = before.get(name)
        if old is None:
            missing = [p for p, annotation in parameters.items() if annotation is None]
            if missing or node.returns is None:
                what = f"parameter `{missing[0]}`" if missing else "its return"
                return (f"it adds the function `{name}` with {what} unannotated (the checker skips an unannotated "
                        "body, and sees an unannotated value as Any): annotate it")
            continue
        had = _parameters(old)
        for parameter, annotation in parameters.items():
            if annotation is None and (had.get(parameter) is not None or (parameter not in had and _typed(old))):
                return f"it leaves the parameter `{parameter}` of `{name}` unannotated"
        if old.returns is not None and node.returns is None:
            return f"it removes the return annotation of `{name}`"
    return None


def _typed(node: Function) -> bool:
    return bool(_annotations(node))
