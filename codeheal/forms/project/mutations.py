"""One-line mutations of a suspicious line, written without a model: the classic mutation
operators of program repair (relational, arithmetic and logical operator replacement, a
constant or an index one off, a negated condition, swapped arguments or operands, a twin
method, a dropped call or negation, another local variable), degenerate ones last.

A defect on one line is most often one token off; these candidates cost no model call, only a
test run each, so the project form screens them before it asks the model (rules.MUTATED_LINES). A
line that does not parse on its own (part of a statement that spans lines) has none."""

from __future__ import annotations

import ast
import io
import itertools
import tokenize
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass

from codeheal.syntax import parse_code

(BOUNDARY, CONSTANT, ARITHMETIC, LOGIC, RELATION, OFF_BY_ONE, ARGUMENTS, TWIN, DROPPED, DEFAULT, VARIABLE,
 INGREDIENT, DEGENERATE) = range(13)
"""Operator classes, likeliest first: the order in which a run screens them. TWIN: a method
or a slice's side swapped for its twin (`split`/`rsplit`, `find`/`rfind`, `append`/`extend`,
`seq[:n]`/`seq[n:]`); DROPPED: a call or a negation left out (`f(x)` -> `x`, `-x` -> `x`).
DEFAULT: a default value of a `def` line changed: a whole number one more or one less (`0` <-> `1`
among them), `True` <-> `False`, a string made its twin (`"left"` <-> `"right"`, STRING_TWINS);
`None` is left alone (what it would become is not in the line).
INGREDIENT: a variable replaced by an expression of it written elsewhere in its function
(`b` -> `b[1:]`), the "plastic surgery" of program repair: a fix's parts are often in the code
already. DEGENERATE, last: mutants that pass a test by degenerate means rather than by a fix:
a sentinel a `return` gives made another constant (`return -1` -> `return -2`), a condition
that is a constant flipped (a branch made dead or always taken). A constant made `-0` (from
`-1`) is not a mutant at all: it is `0` written oddly, and only ever fits a test by chance."""
STRING_TWINS = (("left", "right"), ("first", "last"), ("start", "end"), ("before", "after"),
                ("min", "max"), ("upper", "lower"), ("asc", "desc"), ("<", ">"))
"""A string default's twins: the value's mirror in its own vocabulary, as `_TWINS` for methods."""
INGREDIENT_CHARS = 40
"""Longer expressions of the function are not used as ingredients."""

_OPERATORS: dict[type, str] = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%",
    ast.Pow: "**", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}
_ARITHMETIC_SWAPS = {
    "+": ("-",), "-": ("+",), "*": ("/", "//", "+"), "/": ("//", "*"), "//": ("/", "*", "%"),
    "%": ("//",), "**": ("*",), "&": ("|",), "|": ("&",), "^": ("|",), "<<": (">>",), ">>": ("<<",),
}
_COMPARISONS: dict[type, str] = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
_BOUNDARY_SWAPS = {"<": "<=", "<=": "<", ">": ">=", ">=": ">"}
_RELATION_SWAPS = {
    "<": (">", ">=", "!=", "=="), "<=": (">=", ">", "==", "!="), ">": ("<", "<=", "!=", "=="),
    ">=": ("<=", "<", "==", "!="), "==": ("!=", "<=", ">="), "!=": ("==", "<", ">"),
    "is": ("is not",), "is not": ("is",), "in": ("not in",), "not in": ("in",),
}
_FUNCTION_SWAPS = {"min": "max", "max": "min", "any": "all", "all": "any"}
_TWINS = (("split", "rsplit"), ("find", "rfind"), ("index", "rindex"), ("partition", "rpartition"),
          ("lstrip", "rstrip"), ("ljust", "rjust"), ("startswith", "endswith"), ("append", "extend"),
          ("min", "max"), ("any", "all"), ("bisect_left", "bisect_right"), ("insort_left", "insort_right"),
          ("upper", "lower"), ("keys", "values"), ("pop", "popleft"), ("appendleft", "append"))
_METHOD_TWINS: dict[str, list[str]] = {}
for _a, _b in _TWINS:
    _METHOD_TWINS.setdefault(_a, []).append(_b)
    _METHOD_TWINS.setdefault(_b, []).append(_a)
_STRING_TWINS = {a: b for pair in STRING_TWINS for a, b in (pair, pair[::-1])}
_LOOSE = (ast.BoolOp, ast.IfExp, ast.NamedExpr, ast.Lambda)
"""Expressions that `not` binds tighter than: negated in parentheses."""


@dataclass(frozen=True)
class Mutant:
    """One mutation of a line: the line as mutated (without its indentation) and its class."""

    line: str
    rank: int
    """Its operator class (BOUNDARY ... VARIABLE): lower is screened first."""


def line_mutants(line: str, names: Collection[str], ingredients: Collection[str] = ()) -> list[Mutant]:
    """The distinct mutations of one line of code (`line` without its indentation) that still
    parse, in operator-class order; `names`: the local variables of its function, which a
    variable it reads may be replaced by; `ingredients`: expressions of its function
    (function_ingredients), which a variable they use may be replaced by."""
    line, comment = _code_and_comment(line)
    fragment, shift = _parseable(line)
    try:
        tree = parse_code(fragment)
    except SyntaxError:
        return []
    text = fragment.encode()
    seen = {line}
    mutants = []
    edits = _edits(tree, text, sorted(names), _uses(ingredients))
    for rank, start, end, new in sorted(edits, key=lambda e: e[0]):
        if end > len(line.encode()) + shift:
            continue  # in the body _parseable added
        mutated = (text[:start] + new.encode() + text[end:]).decode()
        mutated = _restore(mutated, line)
        if mutated in seen or not _parses(mutated):
            continue
        seen.add(mutated)
        mutants.append(Mutant(line=mutated + comment, rank=rank))
    return mutants


def local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The function's parameters and the names it assigns (its nested functions' excluded)."""
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def def_line_defaults(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    """The function's default values that DEFAULT changes (a whole number, a bool, a string with
    a twin) when its parameters are all on its `def` line (the line DEFAULT mutates), else none."""
    arguments = function.args
    defaults = [d for d in [*arguments.defaults, *arguments.kw_defaults] if d is not None]
    parts = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg,
             *defaults, function.returns]
    if not all(p.end_lineno == function.lineno for p in parts if p is not None):
        return []
    return [d for d in defaults if _changed_default(d, repr(getattr(d, "value", None)))]


def default_lines(
    files: Mapping[str, str], coverage: Mapping[str, Mapping[str, Collection[int]]]
) -> dict[tuple[str, int], tuple[str, int]]:
    """(path, def line) -> (path, its function's first statement) for each function of the
    files some test executed (`coverage`: test node id -> path -> lines) whose one-line `def`
    holds a default DEFAULT changes (def_line_defaults): the lines the suspicious-line ranking
    may rank with their function's entry. A file that does not parse has none."""
    found = {}
    for path in {path for by_file in coverage.values() for path in by_file if path in files}:
        try:
            tree = ast.parse(files[path])
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            body = node.body[1:] if ast.get_docstring(node) is not None and len(node.body) > 1 else node.body
            if def_line_defaults(node):
                found[(path, node.lineno)] = (path, body[0].lineno)
    return found


def function_ingredients(function: ast.FunctionDef | ast.AsyncFunctionDef, source: str) -> set[str]:
    """The function's short indexing, call, attribute and arithmetic expressions (at most
    INGREDIENT_CHARS characters), as written."""
    found = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Subscript | ast.Call | ast.Attribute | ast.BinOp):
            text = ast.get_source_segment(source, node)
            if text and len(text) <= INGREDIENT_CHARS and "\n" not in text:
                found.add(text)
    return found


def _uses(ingredients: Collection[str]) -> dict[str, list[str]]:
    """Variable -> the ingredients that use it directly (as an operand, an index, an argument)."""
    uses: dict[str, list[str]] = {}
    for text in sorted(ingredients):
        try:
            node = parse_code(text, mode="eval").body
        except SyntaxError:
            continue
        for child in ast.iter_child_nodes(node):
            parts = child.elts if isinstance(child, ast.Tuple) else [child]
            for part in parts:
                if isinstance(part, ast.Name | ast.Slice):
                    for name in ast.walk(part):
                        if isinstance(name, ast.Name):
                            uses.setdefault(name.id, []).append(text)
    return uses


def _code_and_comment(line: str) -> tuple[str, str]:
    """The line's code and its trailing comment (with the space before it), kept as it is."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(line).readline))
    except (tokenize.TokenError, SyntaxError):
        return line, ""
    comments = [t for t in tokens if t.type == tokenize.COMMENT]
    if not comments:
        return line, ""
    code = line[: comments[-1].start[1]].rstrip()
    return code, line[len(code):]


def _parseable(line: str) -> tuple[str, int]:
    """The line as a statement that parses on its own, and how many characters its start
    grew by: a block's header gets a body; `elif` is read as `if`."""
    fragment, shift = line, 0
    if fragment.startswith("elif "):
        fragment, shift = "if " + fragment[len("elif "):], -2
    if fragment.rstrip().endswith(":"):
        fragment += " pass"
    return fragment, shift


def _restore(mutated: str, line: str) -> str:
    if line.startswith("elif "):
        mutated = "elif " + mutated[len("if "):]
    return mutated[: len(mutated) - len(" pass")] if line.rstrip().endswith(":") else mutated


def _parses(line: str) -> bool:
    try:
        parse_code(_parseable(line)[0])
    except SyntaxError:
        return False
    return True


def _edits(
    tree: ast.Module, text: bytes, names: list[str], uses: dict[str, list[str]]
) -> Iterator[tuple[int, int, int, str]]:
    """(class, start, end, replacement) byte spans of the fragment's mutations."""
    def span(node: ast.AST) -> tuple[int, int]:
        return node.col_offset, node.end_col_offset  # type: ignore[attr-defined, return-value]

    def source(node: ast.AST) -> str:
        start, end = span(node)
        return text[start:end].decode()

    def operator_at(left_end: int, right_start: int, symbol: str) -> int:
        return text.index(symbol.encode(), left_end, right_start)

    def operand(node: ast.AST) -> str:
        return f"({source(node)})" if isinstance(node, (ast.BinOp, ast.Compare, *_LOOSE)) else source(node)

    # a function called, or the object indexed, is rarely the wrong variable; its argument or index is
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    called |= {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Subscript | ast.Attribute)}
    dropped = {id(node.right) for node in ast.walk(tree)
               if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub) and _is_one(node.right)}
    negated = {id(node.operand) for node in ast.walk(tree) if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)}
    tests = {id(node.test) for node in ast.walk(tree) if isinstance(node, ast.If | ast.While | ast.IfExp)}
    statement = tree.body[0] if tree.body else None
    sentinel = isinstance(statement, ast.Return) and _is_constant(statement.value)
    defaults = _defaults(statement)
    for default in defaults:
        yield from ((DEFAULT, *span(default), new) for new in _changed_default(default, source(default)))
    inside = {id(node) for default in defaults for node in ast.walk(default)}
    for node in ast.walk(tree):
        if id(node) in inside:
            continue  # a default's own class above
        if isinstance(node, ast.BinOp | ast.AugAssign) and type(node.op) in _OPERATORS:
            symbol = _OPERATORS[type(node.op)]
            left, right = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
            at = operator_at(span(left)[1], span(right)[0], symbol)
            for other in _ARITHMETIC_SWAPS[symbol]:
                yield ARITHMETIC, at, at + len(symbol), other
            if isinstance(node, ast.BinOp) and _is_one(node.right) and symbol in "+-":
                yield CONSTANT, span(left)[1], span(node)[1], ""  # x + 1 -> x
            if isinstance(node, ast.BinOp) and (symbol in ("-", "/", "//", "%", "**") or (
                    symbol == "+" and not _is_number(node.left) and not _is_number(node.right))):
                # swapped operands (`+` too: strings and lists are not commutative)
                yield ARGUMENTS, *span(node), f"{operand(node.right)} {symbol} {operand(node.left)}"
        elif isinstance(node, ast.Compare):
            previous = node.left
            for op, comparator in zip(node.ops, node.comparators, strict=True):
                symbol = _COMPARISONS[type(op)]
                gap = text[span(previous)[1]:span(comparator)[0]].decode()
                at = span(previous)[1] + len(gap) - len(gap.lstrip(" ()"))
                end = span(previous)[1] + len(gap.rstrip(" ()"))
                if symbol in _BOUNDARY_SWAPS:
                    yield BOUNDARY, at, end, _BOUNDARY_SWAPS[symbol]
                for other in _RELATION_SWAPS[symbol]:
                    if other != _BOUNDARY_SWAPS.get(symbol):
                        yield RELATION, at, end, other
                previous = comparator
        elif isinstance(node, ast.BoolOp) and len(node.values) == 2:
            gap_start, gap_end = span(node.values[0])[1], span(node.values[1])[0]
            word = "and" if isinstance(node.op, ast.And) else "or"
            at = text.index(word.encode(), gap_start, gap_end)
            yield LOGIC, at, at + len(word), "or" if word == "and" else "and"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield LOGIC, *span(node), source(node.operand)
        elif isinstance(node, ast.If | ast.While | ast.Assert) and not isinstance(node.test, ast.UnaryOp):
            test = source(node.test)
            yield (DEGENERATE if _is_constant(node.test) else LOGIC, *span(node.test),
                   f"not ({test})" if isinstance(node.test, _LOOSE) else f"not {test}")
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Invert) and not _is_constant(node):
            yield DROPPED, *span(node), operand(node.operand)  # a negation dropped
        elif isinstance(node, ast.Constant) and type(node.value) is bool:
            yield DEGENERATE if sentinel or id(node) in tests else LOGIC, *span(node), str(not node.value)
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            for other in (node.value + 1, node.value - 1):
                if other == 0 and id(node) in negated:
                    continue  # -1 made -0
                if not (other == 0 and id(node) in dropped):  # x + 0: the drop of `+ 1` above
                    yield DEGENERATE if sentinel else CONSTANT, *span(node), str(other)
        elif isinstance(node, ast.Subscript):
            keys = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            for key in keys:
                yield from _one_off(key, source, span)
                if isinstance(key, ast.Slice) and key.step is None and (key.lower is None) != (key.upper is None):
                    bound = source(key.lower or key.upper)  # type: ignore[arg-type]
                    yield TWIN, *span(key), f":{bound}" if key.upper is None else f"{bound}:"
            yield from _swaps(keys, text, source, span)
        elif isinstance(node, ast.Call):
            positional = [a for a in node.args if not isinstance(a, ast.Starred)]
            if isinstance(node.func, ast.Name) and node.func.id == "range":
                for argument in positional:
                    yield from _one_off(argument, source, span)
            if isinstance(node.func, ast.Name) and node.func.id in _FUNCTION_SWAPS:
                yield ARGUMENTS, *span(node.func), _FUNCTION_SWAPS[node.func.id]
            if isinstance(node.func, ast.Attribute) and node.func.attr in _METHOD_TWINS:
                end = span(node.func)[1]
                for twin in _METHOD_TWINS[node.func.attr]:
                    yield TWIN, end - len(node.func.attr), end, twin
            yield from _swaps(positional, text, source, span)
            if (isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords
                    and not isinstance(node.args[0], ast.Starred)):
                yield DROPPED, *span(node), operand(node.args[0])  # a call dropped: f(x) -> x
            elif not node.args and not node.keywords and isinstance(node.func, ast.Attribute):
                yield DROPPED, *span(node), source(node.func.value)  # x.strip() -> x
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names and id(node) not in called:
            for other in names:
                if other != node.id:
                    yield VARIABLE, *span(node), other
            for expression in uses.get(node.id, ()):
                yield INGREDIENT, *span(node), expression


def _defaults(statement: ast.stmt | None) -> list[ast.expr]:
    """A `def` line's default values (none for any other statement)."""
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
        return []
    arguments = statement.args
    return [d for d in [*arguments.defaults, *arguments.kw_defaults] if d is not None]


def _changed_default(node: ast.expr, written: str) -> list[str]:
    """What a default value (`written` as it is) becomes under DEFAULT (nothing for other
    expressions); a string keeps its quotes."""
    negative = isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
    value = node.operand.value if negative and isinstance(node.operand, ast.Constant) else getattr(node, "value", None)
    if not isinstance(node, ast.Constant) and not negative:
        return []
    if type(value) is int:
        number = -value if negative else value
        return [str(number + 1), str(number - 1)]
    if type(value) is bool and not negative:
        return [str(not value)]
    if type(value) is str and not negative and value in _STRING_TWINS and written[1:-1] == value:
        return [f"{written[0]}{_STRING_TWINS[value]}{written[-1]}"]
    return []


def _one_off(node: ast.AST, source, span) -> Iterator[tuple[int, int, int, str]]:
    """An index or a bound one more or one less (a constant's own mutations cover constants)."""
    parts = [node.lower, node.upper] if isinstance(node, ast.Slice) else [node]
    for part in parts:
        if part is None or isinstance(part, ast.Constant | ast.Tuple) or _is_shifted(part):
            continue
        for sign in ("+", "-"):
            yield OFF_BY_ONE, *span(part), f"{source(part)} {sign} 1"


def _swaps(items: list[ast.expr], text: bytes, source, span) -> Iterator[tuple[int, int, int, str]]:
    """Each two neighbours (arguments of a call, keys of a subscript) swapped."""
    for first, second in itertools.pairwise(items):
        middle = text[span(first)[1]:span(second)[0]].decode()
        yield ARGUMENTS, span(first)[0], span(second)[1], f"{source(second)}{middle}{source(first)}"


def _is_shifted(node: ast.AST) -> bool:
    """`x + n` or `x - n`: its constant's own mutations move it already."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub) and isinstance(node.right, ast.Constant)


def _is_constant(node: ast.AST | None) -> bool:
    """A constant, a negated one, or nothing (`return`)."""
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return node is None or isinstance(node, ast.Constant)


def _is_number(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _is_one(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 1 and type(node.value) is int
