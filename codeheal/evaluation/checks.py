"""Turning the user's tests into a pytest module, and refusing tests that cannot work.

The module sees every name of the candidate except those of builtins: `abs` in the tests is
the builtin, bound before the candidate was imported, whatever the candidate defines or
patches; only the request's entry point, the function under test, is the candidate's
whatever its name. Its asserts report to the host (`watched_asserts`), wherever they are (a loop, a
`with`, an `if`, a helper): each comparison the values of both sides, every other assert its
tested value, as plain data the host checks itself."""

from __future__ import annotations

import ast
import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from codeheal.errors import InputError
from codeheal.syntax import parse_code

PRELUDE_LINES = 1
TEST_MODULE = "test_solution.py"
COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
_OPERATORS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
NO_LITERAL = object()
"""A side of a comparison that is computed, not written out in the tests."""

Span = tuple[int, int, int, int]
"""(line, column, end line, end column) of an expression in the tests; columns in UTF-8 bytes."""


@dataclass(frozen=True, eq=False)
class WatchedAssert:
    """An assert of the tests that reports to the host: `index` is its number in the report."""

    index: int
    line: int
    test: str | None
    """The test it belongs to, as its node id ends (`test_x`, `TestX::test_y`, `test_line_3`);
    None in a helper function."""
    required: bool
    """It runs whenever its test runs to the end (a statement of the test's own body before
    anything that can return): a test that passed without reporting it did not run."""
    op: str | None
    """The comparison, when the assert is `LEFT op RIGHT`; None: its one side is the tested
    value, which must be true."""
    sides: tuple[Span, ...]
    """The reported expressions: both sides of a comparison, or the tested value."""
    literals: tuple[Any, ...]
    """Each side's value when the tests write it out (`5`, `[1, 2]`): the host's own, not the job's."""


@functools.lru_cache(maxsize=64)
def parse_tests(tests: str) -> ast.Module:
    """Parse the tests, or raise InputError naming the offending line. Parsed once per text:
    every candidate of a run is judged against the same tests (callers only read the tree)."""
    try:
        return parse_code(tests, filename="tests.py")
    except SyntaxError as exc:
        line = (exc.text or "").rstrip("\n")
        caret = " " * max((exc.offset or 1) - 1, 0) + "^"
        raise InputError(f"tests.py line {exc.lineno}: {exc.msg}\n    {line}\n    {caret}") from None


def count_checks(module: ast.Module) -> int:
    """Test functions plus plain top-level asserts."""
    return len(_checks(module))


def one_assert(module: ast.Module) -> bool:
    """Whether the tests' only check is one plain top-level assert (MBPP's visible test): it
    pins one case down, and code that gets the others wrong passes it too."""
    checks = _checks(module)
    return len(checks) == 1 and isinstance(checks[0], ast.Assert)


def _checks(module: ast.Module) -> list[ast.stmt]:
    classes = test_classes(module)
    return [node for node in module.body if _is_test_function(node, classes) or isinstance(node, ast.Assert)]


def check_names(module: ast.Module) -> frozenset[str]:
    """The names the tests' checks have in the generated module: test functions and classes,
    and `test_line_N` for each plain top-level assert build_test_module wraps."""
    names = set()
    classes = test_classes(module)
    for index, node in enumerate(module.body):
        if _is_test_function(node, classes):
            names.add(node.name)
        elif isinstance(node, ast.Assert) and _alone_on_its_lines(module.body, index):
            names.add(f"test_line_{node.lineno}")
    return frozenset(names)


def checks_after(tests: str, block: str) -> str:
    """The tests, then `block`'s checks, their lines after the tests' own: the tests keep their
    line numbers, so their checks keep their names (check_names)."""
    return tests.rstrip("\n") + "\n" + block


def added_check_names(tests: str, block: str) -> frozenset[str]:
    """The names `block`'s checks have once appended to the tests (checks_after)."""
    return check_names(parse_tests(checks_after(tests, block))) - check_names(parse_tests(tests))


def calls_name(module: ast.Module, name: str) -> bool:
    """Whether the tests refer to `name` at all (a call, an import, an attribute)."""
    for node in ast.walk(module):
        if isinstance(node, ast.Name) and node.id == name:
            return True
        if isinstance(node, ast.Attribute) and node.attr == name:
            return True
        if isinstance(node, ast.alias) and (node.asname or node.name).split(".")[-1] == name:
            return True
    return False


def watched_asserts(module: ast.Module) -> tuple[WatchedAssert, ...]:
    """The asserts in the tests' test functions and plain top-level asserts, in source order."""
    found: list[tuple[ast.Assert, str | None, bool]] = []
    classes = test_classes(module)
    for index, node in enumerate(module.body):
        if isinstance(node, ast.Assert) and _alone_on_its_lines(module.body, index):
            found.append((node, f"test_line_{node.lineno}", True))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found += _asserts_of(node, node.name if _is_test_function(node) else None)
        elif isinstance(node, ast.ClassDef) and _is_test_function(node, classes):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found += _asserts_of(item, f"{node.name}::{item.name}" if item.name.startswith("test") else None)
    found.sort(key=lambda f: (f[0].lineno, f[0].col_offset))
    return tuple(_watched(i, node, test, required) for i, (node, test, required) in enumerate(found))


def _asserts_of(function: ast.FunctionDef | ast.AsyncFunctionDef, test: str | None) -> list[tuple[ast.Assert, str | None, bool]]:
    """The asserts anywhere in `function`, each with whether it always runs when the test ends."""
    unconditional: set[int] = set()
    for statement in function.body:
        if _may_leave(statement):
            break
        if isinstance(statement, ast.Assert):
            unconditional.add(id(statement))
    return [
        (node, test, test is not None and id(node) in unconditional)
        for node in ast.walk(function) if isinstance(node, ast.Assert)
    ]


def _may_leave(statement: ast.stmt) -> bool:
    """Whether a statement can end its function early (a return, raise or yield in it)."""
    return any(isinstance(node, (ast.Return, ast.Raise, ast.Yield, ast.YieldFrom)) for node in ast.walk(statement))


def _watched(index: int, node: ast.Assert, test: str | None, required: bool) -> WatchedAssert:
    compare = node.test
    if isinstance(compare, ast.Compare) and len(compare.ops) == 1 and type(compare.ops[0]) in _OPERATORS:
        left, right = compare.left, compare.comparators[0]
        return WatchedAssert(index=index, line=node.lineno, test=test, required=required,
                             op=_OPERATORS[type(compare.ops[0])], sides=(_span(left), _span(right)),
                             literals=(_literal(left), _literal(right)))
    return WatchedAssert(index=index, line=node.lineno, test=test, required=required, op=None,
                         sides=(_span(compare),), literals=(_literal(compare),))


def _span(node: ast.expr) -> Span:
    return node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or 0


def _literal(node: ast.expr) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return NO_LITERAL


def _instrumented(tests: str, watched: Sequence[WatchedAssert]) -> str:
    """The tests with the recorders spliced in, every line keeping its number."""
    lines = [line.encode("utf-8") for line in tests.splitlines()]
    inserts: list[tuple[int, int, bytes]] = []
    for check in watched:
        for side, (line, col, end_line, end_col) in enumerate(check.sides):
            last = side == len(check.sides) - 1
            inserts.append((line, col, f"_codeheal_value_({check.index}, {side}, (".encode()))
            inserts.append((end_line, end_col, f"), {check.op or 'bool'!r})".encode() if last else b"))"))
    # from the end backwards, so every earlier position stays where it was
    for line, col, text in sorted(inserts, key=lambda i: (i[0], i[1]), reverse=True):
        lines[line - 1] = lines[line - 1][:col] + text + lines[line - 1][col:]
    return "\n".join(line.decode("utf-8") for line in lines)


def prelude(entry_point: str | None = None, *, apart: bool = True) -> str:
    """The test module's first line (PRELUDE_LINES): the candidate's names, then the builtins,
    then the candidate's `entry_point` (codeheal_report.test_names). `apart`: the candidate in
    a process of its own (codeheal_proxy); else imported into the test process, as plain
    pytest does."""
    if entry_point is not None and not entry_point.isidentifier():
        raise InputError(f"entry_point {entry_point!r} is not a Python identifier")
    named = f", {entry_point!r}" if entry_point else ""
    candidate = '__import__("codeheal_proxy").candidate(__file__)' if apart else '__import__("solution")'
    where = "its own process" if apart else "this process"
    return (f'globals().update(__import__("codeheal_report").test_names({candidate}{named}))'
            f"  # the candidate's names ({where}), then the builtins (added by codeheal)\n")


def build_test_module(tests: str, watched: Sequence[WatchedAssert] = (), entry_point: str | None = None,
                      *, apart: bool = True) -> str:
    """The tests as test_solution.py: the candidate's names in scope (`prelude`), and each plain
    top-level assert wrapped in its own test function so it counts as its own check;
    the `watched` asserts (from `watched_asserts` of the same tests) instrumented.

    Other top-level statements stay at module level, so names they bind are visible
    to the wrapped asserts (as module globals, after the whole module has run). Line N
    of the tests is line N + PRELUDE_LINES of the module."""
    module = parse_tests(tests)
    lines = _instrumented(tests, watched).splitlines() if watched else tests.splitlines()
    out: list[str] = []
    cursor = 0
    body = module.body
    for index, node in enumerate(body):
        if not isinstance(node, ast.Assert) or not _alone_on_its_lines(body, index):
            continue
        start, end = node.lineno - 1, node.end_lineno or node.lineno
        out.extend(lines[cursor:start])
        # On the assert's own line, so every line keeps its number (a multi-line assert
        # continues inside brackets or after a backslash, where indentation is free).
        out.append(f"def test_line_{node.lineno}(): {lines[start]}")
        out.extend(lines[start + 1:end])
        cursor = end
    out.extend(lines[cursor:])
    return prelude(entry_point, apart=apart) + "\n".join(out) + "\n"


def statement_at(tests: str, line: int) -> str | None:
    """The innermost statement of the tests that spans `line`, as written; None if none."""
    try:
        module = parse_code(tests)
    except SyntaxError:
        return None
    spanning = [node for node in ast.walk(module) if isinstance(node, ast.stmt)
                and node.lineno <= line <= (node.end_lineno or node.lineno)
                and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if not spanning:
        return None
    innermost = max(spanning, key=lambda node: (node.lineno, -(node.end_lineno or node.lineno)))
    return ast.get_source_segment(tests, innermost)


def _alone_on_its_lines(body: list[ast.stmt], index: int) -> bool:
    node = body[index]
    if node.col_offset != 0:
        return False
    if index > 0 and (body[index - 1].end_lineno or 0) >= node.lineno:
        return False
    return index + 1 == len(body) or body[index + 1].lineno > (node.end_lineno or node.lineno)


def _is_test_function(node: ast.stmt, classes: frozenset[str] = frozenset()) -> bool:
    """Whether pytest collects `node`: a `test*` function, or one of the module's test classes
    (`classes`, from test_classes)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node.name.startswith("test")
    return isinstance(node, ast.ClassDef) and node.name in classes


SKIP_MARKS = frozenset({"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure"})
"""Marks and unittest decorators by which tests skip themselves or expect to fail."""
SKIP_CALLS = frozenset({"skip", "xfail", "importorskip", "skipTest"})
"""Calls by which a test's own body skips it."""


def marked_to_skip(module: ast.Module) -> frozenset[str]:
    """The tests (`test_x`, `TestX` for all its methods, `TestX::test_y`) that the tests' own text
    may skip or mark xfail (`@pytest.mark.skip`, `skipif`, `xfail`, also on a parameter or the
    module's `pytestmark`; unittest's `skip*` and `expectedFailure`; a `pytest.skip(...)` or
    `self.skipTest(...)` in the test's body): such a test skipped or xfail is not counted, as
    plain pytest does not count it. A skip from anywhere else (the candidate) is no pass."""
    if any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
           and _marks_skip(node.value) for node in module.body):
        return frozenset(node.name for node in module.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                                 ast.ClassDef)))
    found: set[str] = set()
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and _skips_itself(node):
            found.add(node.name)
        if isinstance(node, ast.ClassDef):
            found |= {f"{node.name}::{item.name}" for item in node.body
                      if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and _skips_itself(item)}
    return frozenset(found)


def _skips_itself(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
    """A skip or xfail mark on it, or (a function) a call in its own body that skips it
    (`pytest.skip(...)`, `pytest.importorskip(...)`, `pytest.xfail(...)`, `self.skipTest(...)`)."""
    if any(_marks_skip(d) for d in node.decorator_list):
        return True
    return not isinstance(node, ast.ClassDef) and any(
        isinstance(call, ast.Call) and _called_name(call.func) in SKIP_CALLS for call in ast.walk(node))


def _called_name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _marks_skip(node: ast.expr) -> bool:
    return any(isinstance(part, ast.Attribute) and part.attr in SKIP_MARKS
               or isinstance(part, ast.Name) and part.id in SKIP_MARKS for part in ast.walk(node))


def _has_tests(node: ast.ClassDef) -> bool:
    return any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test")
               for item in node.body)


def test_classes(module: ast.Module) -> frozenset[str]:
    """The module's top-level classes pytest collects tests from: named `Test*`, or deriving
    from a `*TestCase` class (unittest's `TestCase`, `IsolatedAsyncioTestCase`, however
    imported) or from another of the module's, whatever their name; with `test*` methods of
    their own or of a base of the module's."""
    tested: dict[str, bool] = {}
    unittest: set[str] = set()
    for node in module.body:
        if isinstance(node, ast.ClassDef):
            bases = [_base_name(base) for base in node.bases]
            if any(base.endswith("TestCase") or base in unittest for base in bases):
                unittest.add(node.name)
            tested[node.name] = _has_tests(node) or any(tested.get(base, False) for base in bases)
    return frozenset(name for name, has in tested.items() if has and (name.startswith("Test") or name in unittest))


def _base_name(base: ast.expr) -> str:
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def top_level_imports(tests: ast.Module) -> list[str]:
    """The top-level names of the modules the tests import at module level, outside a `try`
    (an import there fails the whole test module), in order."""
    names: list[str] = []
    for node in tests.body:
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module.split(".")[0])
    return list(dict.fromkeys(names))
