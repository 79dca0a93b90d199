"""What the actor sees of a failing project, fitted to a token budget.

In reading order: the failing tests (a parametrised test's failures as one entry: a few inputs
with expected and actual, and the count), the failing tests' source (their parametrize lists are
the inputs), the project's functions on the failing path with line numbers (the traceback's
project frames and the --target), the functions on the chains of calls from the failing tests
to the most suspicious lines (a helper the tests reach through other functions: each caller
around the call that leads on, the function that holds a suspicious line whole), the lines
the tests' coverage ranks most suspicious, the other project functions the failing tests call
(directly or through each other: a failed assert's traceback stops in the test), and part of
the test data the tests load.

When the text is over budget it is trimmed in this order, each part as far as it goes before
the next is touched: test data (20 lines, 5, none); functions the tests call, later ones
first; the other failing tests (one example each, then their names only); the suspicious
lines (the first, then none), the functions on the chains (around their marks, then left
out, the deepest first) and the callers on the traceback (around the failing line, then left
out); the test source (around the failing line, then left out); the first failing test (one
example); the function to fix (around the failing line). What is left then is the minimum: the first failing
test with one example and the code around the failing line; PromptTooLargeError when even that
does not fit. Tokens are estimated (`codeheal.tokens`)."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from codeheal.errors import PromptTooLargeError
from codeheal.forms.project.edits import Target, paths_named
from codeheal.forms.project.test_paths import is_test_file
from codeheal.state import CheckFailure, Frame, SuspiciousLine
from codeheal.syntax import parse_code
from codeheal.tokens import estimate_tokens

EXAMPLES_SHOWN = 3
DATA_LINES = (20, 5)
EXCERPT_CONTEXT = 3
LINE_CHARS = 300
"""A longer message, expected or actual value, or line of test data is cut to this."""
DATA_SUFFIXES = frozenset({".json", ".jsonl", ".csv", ".txt", ".yaml", ".yml", ".toml"})
CALL_DEPTH = 3
CHAIN_DEPTH = 4
"""Calls from a failing test to a suspicious line's function that a chain may take."""
CALLED_SHOWN = 6
SUSPICIOUS_SHOWN = 5


@dataclass(frozen=True)
class _Section:
    levels: list[str]
    """Renderings from richest to smallest; the last is the least this section shows."""
    trim_order: int
    """Lower is trimmed first."""


def repair_context(
    failures: Sequence[CheckFailure],
    files: Mapping[str, str],
    budget_tokens: int,
    *,
    targets: Sequence[Target] = (),
    count: Callable[[str], int] = estimate_tokens,
    suspicious: Sequence[SuspiciousLine] = (),
    least: bool = False,
) -> str:
    """The failure and the code to repair, as the actor prompt shows them, in at most
    `budget_tokens` as `count` counts them (the model's tokenizer where known, else the estimate). `files`: the workspace, path -> text; `targets`: functions to
    show even when the traceback does not reach them (--target; for a failed assert it stops in
    the test); `suspicious`: the lines the tests' coverage ranks most suspicious, listed after
    the code. Raises PromptTooLargeError when the minimum does not fit, unless `least`: then the
    minimum, over the budget."""
    if not failures:
        raise ValueError("repair_context needs at least one failure")
    groups = _group(failures)
    sections = [_group_section(name, group, files, first=index == 0) for index, (name, group) in enumerate(groups)]
    tests, code = _frames_by_kind(failures, files)
    sections += [_Section(_function_levels(files, f.file, f.node, f.marks, droppable=True), 4) for f in tests]
    functions = _functions_to_show(code, targets, files)
    sections += [
        _Section(_function_levels(files, f.file, f.node, f.marks, droppable=not f.essential), 6 if f.essential else 3)
        for f in functions
    ]
    shown = {(f.file, f.node.lineno) for f in functions}
    chain = _chain_functions(tests, files, suspicious, shown)
    sections += [_Section(_chain_levels(files, f), 3) for f in chain]
    if listed := [e for e in suspicious[:SUSPICIOUS_SHOWN] if e["file"] in files]:
        sections.append(_Section(_suspicious_levels(listed, files), 3))
    shown |= {(f.file, f.node.lineno) for f in chain}
    sections += [
        _Section(_function_levels(files, path, node, frozenset(), droppable=True), 2)
        for path, node in _called_functions(tests, files, shown)
    ]
    sections += [_Section(_data_levels(path, files[path]), 1) for path in _data_files(failures, files)]
    return _fit(sections, budget_tokens, count, least=least)


def repair_scope(
    failures: Sequence[CheckFailure], files: Mapping[str, str], *, targets: Sequence[Target] = (),
    suspicious: Sequence[SuspiciousLine] = (),
) -> set[tuple[str, str]] | None:
    """The (path, function name) pairs a repair may change: the targets, the project functions
    on the failing traceback, those on the chains of calls from the failing tests to the most
    suspicious lines and those the failing tests call, as `repair_context` shows them. None when
    the failures reach no project function (a crash at import, a collection error): then the
    scope is not known, and nothing is ruled out."""
    tests, code = _frames_by_kind(failures, files)
    functions = _functions_to_show(code, targets, files)
    shown = {(f.file, f.node.lineno) for f in functions}
    chain = _chain_functions(tests, files, suspicious, shown)
    shown |= {(f.file, f.node.lineno) for f in chain}
    scope = {(f.file, f.node.name) for f in [*functions, *chain]}
    scope |= {(path, node.name) for path, node in _called_functions(tests, files, shown)}
    return scope or None


def primary_function(
    failures: Sequence[CheckFailure], files: Mapping[str, str], *, targets: Sequence[Target] = ()
) -> tuple[str, str] | None:
    """The top-level function a repair most likely changes, as (path, its `def` lines up to
    the colon): the first target, else the innermost project function on the failing
    traceback, else the first one the failing tests call. None for a method or no function."""
    tests, code = _frames_by_kind(failures, files)
    functions = _functions_to_show(code, targets, files)
    shown = {(f.file, f.node.lineno) for f in functions}
    candidates = [(f.file, f.node) for f in functions] or _called_functions(tests, files, shown)
    if not candidates:
        return None
    path, node = candidates[0]
    lines = files[path].splitlines()
    header = lines[node.lineno - 1: node.body[0].lineno - 1]
    if not header or lines[node.lineno - 1].startswith((" ", "\t")):
        return None  # a method: its class line would be needed too
    return path, "\n".join(header) + "\n"


def _suspicious_levels(listed: Sequence[SuspiciousLine], files: Mapping[str, str]) -> list[str]:
    head = "Most suspicious lines (run by the failing tests more than by the passing ones):"
    rows = [f"- {e['file']} line {e['line']}: {_cut(files[e['file']].splitlines()[e['line'] - 1].strip())}"
            for e in listed]
    return [head + "\n" + "\n".join(rows[:shown]) for shown in (len(rows), 1)] + [""]


def _fit(sections: list[_Section], budget_tokens: int, count: Callable[[str], int], *, least: bool) -> str:
    level = [0] * len(sections)

    def render() -> str:
        return "\n\n".join(text for s, n in zip(sections, level) if (text := s.levels[n]))

    text = render()
    while count(text) > budget_tokens:
        trimmable = [i for i, s in enumerate(sections) if level[i] < len(s.levels) - 1]
        if not trimmable:
            if least:
                return text
            raise PromptTooLargeError(
                f"the failure and the code around it need about {count(text):,} tokens, "
                f"over the budget of {budget_tokens:,}: use a model with a larger context "
                "(--context-size), or point --target at a smaller function"
            )
        # later sections first within an order: the first failing test outranks the others
        index = min(trimmable, key=lambda i: (sections[i].trim_order, -i))
        level[index] += 1
        text = render()
    return text


def _group(failures: Sequence[CheckFailure]) -> list[tuple[str, list[CheckFailure]]]:
    """Failures by test function: the parametrised cases of one test together, in order."""
    groups: dict[str, list[CheckFailure]] = {}
    for failure in failures:
        groups.setdefault(failure["test"].split("[", 1)[0], []).append(failure)
    return list(groups.items())


def _group_section(name: str, group: list[CheckFailure], files: Mapping[str, str], *, first: bool) -> _Section:
    where = next((f["file"] for c in group for f in c["frames"] if is_test_file(f["file"])), None)
    head = f"- {name}" + (f" ({where})" if where else "")
    count = f" failed for {len(group)} inputs, e.g.:" if len(group) > 1 else " failed:"
    levels = [head + count + "".join(_example(c) for c in group[:shown]) for shown in (EXAMPLES_SHOWN, 1)]
    if first:
        levels[0] = "Failing tests:\n" + levels[0]
        levels[1] = "Failing tests:\n" + levels[1]
        return _Section(levels, 5)
    times = f"{len(group)} time" + ("s" if len(group) > 1 else "")
    return _Section([*levels, f"{head} failed ({times})"], 2)


def _example(failure: CheckFailure) -> str:
    message = failure["message"].strip().splitlines()
    line = f"\n    {failure['test']}: {failure['exception']}" + (f": {_cut(message[0])}" if message else "")
    if failure.get("inputs"):
        line += "\n      inputs " + _cut(", ".join(f"{k}={v}" for k, v in failure["inputs"].items()))
    if failure["expected"] is not None:
        line += f"\n      expected {_cut(failure['expected'])}, got {_cut(failure['actual'] or '')}"
    return line


def _cut(text: str) -> str:
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS] + "..."


@dataclass(frozen=True)
class _Function:
    file: str
    node: ast.FunctionDef | ast.AsyncFunctionDef
    marks: frozenset[int]
    essential: bool


def _frames_by_kind(failures: Sequence[CheckFailure], files: Mapping[str, str]):
    """The functions the failing frames are in: test functions, and project code innermost first."""
    tests: dict[tuple[str, int], _Function] = {}
    code: dict[tuple[str, int], _Function] = {}
    for failure in failures:
        for depth, frame in enumerate(reversed(failure["frames"])):
            located = _locate(frame, files)
            if located is None:
                continue
            path, node = located
            bucket = tests if is_test_file(path) else code
            key = (path, node.lineno)
            previous = bucket.get(key)
            marks = frozenset({frame["line"]}) | (previous.marks if previous else frozenset())
            bucket[key] = _Function(path, node, marks, essential=previous.essential if previous else depth == 0)
    return list(tests.values()), list(code.values())


def _functions_to_show(code: list[_Function], targets: Sequence[Target], files: Mapping[str, str]) -> list[_Function]:
    """The project functions to show: the targets (essential), then the traceback's, with the
    innermost frame essential when no target is given."""
    shown: dict[tuple[str, int], _Function] = {}
    for target in targets:
        path = _resolve(target.file, files)
        node = _by_name(files[path], target.function) if path else None
        if node is not None:
            shown[(path, node.lineno)] = _Function(path, node, frozenset(), essential=True)
    for function in code:
        key = (function.file, function.node.lineno)
        essential = function.essential and not targets
        marks = function.marks | (shown[key].marks if key in shown else frozenset())
        shown[key] = _Function(function.file, function.node, marks, essential or key in shown)
    return list(shown.values())


def _function_levels(
    files: Mapping[str, str], path: str, node: ast.FunctionDef | ast.AsyncFunctionDef,
    marks: frozenset[int], *, droppable: bool,
) -> list[str]:
    lines = files[path].splitlines()
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    head = f"{path}, {node.name} (lines {start}-{end}):"
    whole = [head + "\n" + _numbered(lines, range(start, end + 1), marks)]
    if marks:
        near = [n for n in range(start, end + 1) if any(abs(n - m) <= EXCERPT_CONTEXT for m in marks) or n == start]
        whole.append(head + "\n" + _numbered(lines, near, marks))
    return whole + ([""] if droppable else [])


def _numbered(lines: list[str], numbers: Sequence[int], marks: frozenset[int]) -> str:
    out, previous = [], None
    for n in numbers:
        if previous is not None and n != previous + 1:
            out.append("   ...")
        out.append(f"{'>>' if n in marks else '  '}{n:4d} | {lines[n - 1]}")
        previous = n
    return "\n".join(out)


def _called_functions(
    tests: list[_Function], files: Mapping[str, str], shown: set[tuple[str, int]]
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Project functions the failing tests call, then the ones those call (CALL_DEPTH levels,
    at most CALLED_SHOWN), matched by name: `line_total(...)` a function, `cart.total()` a
    method, `Cart(...)` its `__init__`. Those in `shown` already are left out, not the calls
    through them."""
    by_name = _functions_by_name(files)
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    seen: set[tuple[str, int]] = set()
    frontier: list[ast.AST] = [t.node for t in tests]
    for _ in range(CALL_DEPTH):
        called = [entry for node in frontier for _, name in _calls(node) for entry in by_name.get(name, [])]
        frontier = []
        for path, node in called:
            if (path, node.lineno) in seen or len(found) >= CALLED_SHOWN:
                continue
            seen.add((path, node.lineno))
            frontier.append(node)
            if (path, node.lineno) not in shown:
                found.append((path, node))
    return found


def _chain_functions(
    tests: list[_Function], files: Mapping[str, str], suspicious: Sequence[SuspiciousLine],
    shown: set[tuple[str, int]],
) -> list[_Function]:
    """The project functions on the chains of calls from the failing tests to the functions
    that hold the SUSPICIOUS_SHOWN most suspicious lines (matched by name, CHAIN_DEPTH calls
    deep at most, the first chain found to each), callers first; each marked at the lines that
    matter: its call of the next function on the chain, and its suspicious lines (`essential`
    when it holds one). Those in `shown` (the traceback's) are left out, not the chains
    through them."""
    goals: dict[tuple[str, int], set[int]] = {}
    for entry in suspicious[:SUSPICIOUS_SHOWN]:
        found = _locate(Frame(file=entry["file"], line=entry["line"], function="", source=""), files)
        if found is not None and not is_test_file(found[0]):
            goals.setdefault((found[0], found[1].lineno), set()).add(entry["line"])
    if not goals:
        return []
    by_name = _functions_by_name(files)
    nodes = {(path, node.lineno): (path, node) for entries in by_name.values() for path, node in entries}
    caller: dict[tuple[str, int], tuple[tuple[str, int], int] | None] = {}
    frontier: list[tuple[tuple[str, int] | None, ast.AST]] = [(None, t.node) for t in tests]
    for _ in range(CHAIN_DEPTH):
        reached = []
        for parent, node in frontier:
            for line, name in _calls(node):
                for path, callee in by_name.get(name, []):
                    key = (path, callee.lineno)
                    if key not in caller:
                        caller[key] = (parent, line) if parent is not None else None
                        reached.append((key, callee))
        frontier = reached
    marks: dict[tuple[str, int], set[int]] = {}
    for goal, lines in goals.items():
        if goal not in caller:
            continue
        marks.setdefault(goal, set()).update(lines)
        step = caller[goal]
        while step is not None:
            at, line = step
            marks.setdefault(at, set()).add(line)
            step = caller[at]
    ordered = sorted(marks, key=lambda key: (_depth(key, caller), key))
    return [_Function(nodes[key][0], nodes[key][1], frozenset(marks[key]), essential=key in goals)
            for key in ordered if key not in shown]


def _depth(key: tuple[str, int], caller: Mapping[tuple[str, int], tuple[tuple[str, int], int] | None]) -> int:
    depth, step = 0, caller[key]
    while step is not None:
        depth, step = depth + 1, caller[step[0]]
    return depth


def _chain_levels(files: Mapping[str, str], function: _Function) -> list[str]:
    """A function on a chain of calls: one that holds a suspicious line whole, then around its
    marks; a caller between around its marks only (its def line, the call that leads on)."""
    levels = _function_levels(files, function.file, function.node, function.marks, droppable=True)
    return levels if function.essential else levels[1:]


def _functions_by_name(files: Mapping[str, str]) -> dict[str, list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]]:
    """The project's functions (not the tests') by the name a call names them: `line_total(...)`
    a function, `cart.total()` a method, `Cart(...)` its `__init__`."""
    by_name: dict[str, list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]] = {}
    for path in sorted(p for p in files if p.endswith(".py") and not is_test_file(p)):
        for owner, node in project_functions(files[path]):
            key = owner if node.name == "__init__" and owner else node.name
            by_name.setdefault(key, []).append((path, node))
    return by_name


def _calls(node: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of each call in `node`, in source order, each name once."""
    calls = sorted((n for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name | ast.Attribute)),
                   key=lambda n: (n.lineno, n.col_offset))
    first: dict[str, int] = {}
    for call in calls:
        first.setdefault(call.func.id if isinstance(call.func, ast.Name) else call.func.attr, call.lineno)
    return [(line, name) for name, line in first.items()]


def project_functions(source: str) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(class name or "", function) for the top-level functions and the methods of top-level
    classes of a module's source (none when it does not parse)."""
    out = []
    for node in _parse(source).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append(("", node))
        elif isinstance(node, ast.ClassDef):
            out += [(node.name, n) for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    return out


def _data_files(failures: Sequence[CheckFailure], files: Mapping[str, str]) -> list[str]:
    """Data files the failing tests load: named (by file name or stem) in a failing test's
    module or in a conftest.py."""
    readers = {f["file"] for c in failures for f in c["frames"] if is_test_file(f["file"])}
    sources = "\n".join(
        files[p] for p in files if p in readers or PurePosixPath(p).name == "conftest.py"
    )
    return sorted(
        path for path in files
        if PurePosixPath(path).suffix in DATA_SUFFIXES
        and re.search(rf"\b{re.escape(PurePosixPath(path).stem)}\b", sources)
    )


def _data_levels(path: str, text: str) -> list[str]:
    lines = text.splitlines()
    levels = []
    for keep in DATA_LINES:
        more = len(lines) - keep
        tail = f"\n... ({more} more lines)" if more > 0 else ""
        levels.append(f"Test data, {path}:\n" + "\n".join(map(_cut, lines[:keep])) + tail)
    return [*levels, ""]


def _resolve(path: str, files: Mapping[str, str]) -> str | None:
    """A frame's or target's file as a workspace path (frames may carry only a file name)."""
    matches = paths_named(path, files)
    return matches[0] if len(matches) == 1 else None


def _locate(frame: Frame, files: Mapping[str, str]) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    path = _resolve(frame["file"], files)
    if path is None or not path.endswith(".py"):
        return None
    enclosing = [
        node for node in ast.walk(_parse(files[path]))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.lineno <= frame["line"] <= (node.end_lineno or node.lineno)
    ]
    return (path, max(enclosing, key=lambda n: n.lineno)) if enclosing else None


def _by_name(source: str, qualname: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    body: list[ast.stmt] = _parse(source).body
    *owners, name = qualname.split(".")
    for owner in owners:
        body = next((n.body for n in body if isinstance(n, ast.ClassDef) and n.name == owner), [])
    return next((n for n in body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name), None)


@functools.lru_cache(maxsize=64)
def _parse(source: str) -> ast.Module:
    """The module's tree, parsed once per text (every prompt, scope check and line slot of a
    run reads the same files; the trees are only read)."""
    try:
        return parse_code(source)
    except SyntaxError:
        return ast.Module(body=[], type_ignores=[])
