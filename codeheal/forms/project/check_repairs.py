"""The screen's cheap repairs of a type checker's errors (`fix --check`): for the common errors
of mypy and pyright (read from the message, so both are served), a few one-line edits at the
diagnostic's line or at its function's `def` line: a conversion unwrapped, replaced or added
(`return str(x)` under `-> float`), the annotation changed to what the code gives, a `None`
check before an optional value's attribute, a missing `return` of the value computed last.
Each candidate is a reply of corrected definitions, applied and tested like the screen's
mutants, before any model call; when the project has several errors, the first edit of each
together comes first (a change must clear them all)."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from codeheal.forms.project.checker import Diagnostic, function_at
from codeheal.forms.project.repair_context import project_functions

CONVERSIONS = frozenset({"int", "float", "str", "bool", "list", "tuple", "set", "dict", "bytes"})
"""Builtin types whose call converts a value: the conversions a repair may unwrap or add."""
RETURNED = re.compile(
    r'Incompatible return value type \(got "(?P<got>[^"]+)", expected "(?P<expected>[^"]+)"\)'
    r'|Type "(?P<got2>[^"]+)" is not assignable to return type "(?P<expected2>[^"]+)"'
)
ASSIGNED = re.compile(
    r'Incompatible types in assignment \(expression has type "(?P<got>[^"]+)", variable has type "(?P<expected>[^"]+)"\)'
    r'|Type "(?P<got2>[^"]+)" is not assignable to declared type "(?P<expected2>[^"]+)"'
)
ARGUMENT = re.compile(
    r'Argument (?P<position>\d+) to "(?P<function>\w+)" has incompatible type "(?P<got>[^"]+)"; '
    r'expected "(?P<expected>[^"]+)"'
    r'|Argument of type "(?P<got2>[^"]+)" cannot be assigned to parameter "(?P<parameter>\w+)" of type '
    r'"(?P<expected2>[^"]+)" in function "(?P<function2>\w+)"'
)
NONE_ATTRIBUTE = re.compile(r'Item "None" of "[^"]+" has no attribute "(?P<attribute>\w+)"'
                            r'|"(?P<attribute2>\w+)" is not a known attribute of "None"')
MISSING_RETURN = re.compile(r"Missing return statement|must return value on all code paths")
HIDING_TYPE = re.compile(r"\b(?:Any|object)\b")
"""A type an annotation is never changed to: the checker would see less (check_surface.py)."""


class Edit(NamedTuple):
    """One line of a project file replaced by `lines` (one, or two: a line inserted before it)."""

    file: str
    line: int
    lines: tuple[str, ...]


def type_repairs(diagnostics: Sequence[Diagnostic], files: Mapping[str, str], limit: int) -> list[str]:
    """The screen's replies for the checker's `diagnostics` of the project's `files`, at most
    `limit`: with several diagnostics, their first edits together first; then each edit alone,
    the diagnostics' first edits before their second ones."""
    per_diagnostic = [edits_for(d, files) for d in diagnostics if d["file"] in files]
    per_diagnostic = [edits for edits in per_diagnostic if edits]
    replies = []
    firsts = list({(e.file, e.line): e for e in (edits[0] for edits in per_diagnostic)}.values())
    if len(firsts) > 1:
        replies.append(reply_of(firsts, files))
    depth = max((len(edits) for edits in per_diagnostic), default=0)
    replies += [reply_of([edits[i]], files) for i in range(depth) for edits in per_diagnostic if i < len(edits)]
    return [reply for reply in dict.fromkeys(replies) if reply][:limit]


def edits_for(diagnostic: Diagnostic, files: Mapping[str, str]) -> list[Edit]:
    """The cheap edits for one diagnostic, likeliest first; none for an error not read here."""
    message, path, number = diagnostic["message"], diagnostic["file"], diagnostic["line"]
    lines = files[path].splitlines()
    if not 1 <= number <= len(lines):
        return []
    text = lines[number - 1]
    if match := RETURNED.search(message):
        got, expected = match["got"] or match["got2"], match["expected"] or match["expected2"]
        annotated = [] if HIDING_TYPE.search(got) else _annotated(path, files, number, got, expected)
        return [*_converted(path, number, text, r"return\s+", expected), *annotated]
    if match := ASSIGNED.search(message):
        got, expected = match["got"] or match["got2"], match["expected"] or match["expected2"]
        converted = _converted(path, number, text, r"\w+(?:\s*:\s*[^=]+)?\s*=\s*", expected)
        annotation = re.sub(rf":\s*{re.escape(expected)}\s*=", f": {got} =", text, count=1)
        annotated = annotation != text and not HIDING_TYPE.search(got)
        return [*converted, *([Edit(path, number, (annotation,))] if annotated else [])]
    if match := ARGUMENT.search(message):
        return _argument(path, number, text, match)
    if match := NONE_ATTRIBUTE.search(message):
        attribute = match["attribute"] or match["attribute2"]
        owners = dict.fromkeys(re.findall(rf"\b([A-Za-z_]\w*)\.{attribute}\b", text))
        indent = text[: len(text) - len(text.lstrip())]
        return [Edit(path, number, (f"{indent}assert {name} is not None", text)) for name in owners]
    if MISSING_RETURN.search(message):
        return _missing_return(path, files, number)
    return []


def _converted(path: str, number: int, text: str, start: str, expected: str) -> list[Edit]:
    """A value's conversion unwrapped, replaced by `expected`'s, or added, where `text` is
    `start` followed by the value (`return VALUE`, `NAME: T = VALUE`)."""
    match = re.match(rf"(?P<head>\s*{start})(?P<value>.+?)\s*$", text)
    if match is None or _expression(match["value"]) is None:
        return []
    head, value = match["head"], match["value"]
    node = _expression(value)
    versions = []
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in CONVERSIONS \
            and len(node.args) == 1 and not node.keywords:
        inner = ast.get_source_segment(value, node.args[0]) or ""
        versions.append(inner)
        if expected in CONVERSIONS:
            versions.append(f"{expected}({inner})")
    elif expected in CONVERSIONS:
        versions.append(f"{expected}({value})")
    return [Edit(path, number, (head + version,)) for version in versions]


def _annotated(path: str, files: Mapping[str, str], number: int, got: str, expected: str) -> list[Edit]:
    """The return annotation `-> expected` of the function holding line `number` made `-> got`."""
    found = function_at(files[path], number)
    if found is None:
        return []
    _, node = found
    lines = files[path].splitlines()
    for header in range(node.lineno, node.body[0].lineno):
        text = lines[header - 1]
        changed = re.sub(rf"->\s*{re.escape(expected)}\s*:", f"-> {got}:", text, count=1)
        if changed != text:
            return [Edit(path, header, (changed,))]
    return []


def _argument(path: str, number: int, text: str, match: re.Match[str]) -> list[Edit]:
    """The argument a call on the line passes converted to the parameter's type."""
    expected, function = match["expected"] or match["expected2"], match["function"] or match["function2"]
    if expected not in CONVERSIONS:
        return []
    stripped = text.lstrip()
    indent = text[: len(text) - len(stripped)]
    tree = _statement(stripped)
    if tree is None:
        return []
    edits = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", None)
        if name != function:
            continue
        if match["position"]:
            position = int(match["position"]) - 1
            arguments = [call.args[position]] if position < len(call.args) else []
        else:
            arguments = [k.value for k in call.keywords if k.arg == match["parameter"]] or list(call.args)
        for argument in arguments:
            if isinstance(argument, ast.Starred) or argument.end_col_offset is None or argument.lineno != 1:
                continue
            segment = stripped[argument.col_offset:argument.end_col_offset]
            changed = stripped[:argument.col_offset] + f"{expected}({segment})" + stripped[argument.end_col_offset:]
            edits.append(Edit(path, number, (indent + changed,)))
    return edits


def _missing_return(path: str, files: Mapping[str, str], number: int) -> list[Edit]:
    """The value a function computes last returned: its last statement, an expression, made a
    `return`; or the name it assigns last returned after it."""
    found = function_at(files[path], number)
    if found is None:
        return []
    last = found[1].body[-1]
    lines = files[path].splitlines()
    if last.end_lineno != last.lineno:
        return []
    text = lines[last.lineno - 1]
    indent = text[: len(text) - len(text.lstrip())]
    if isinstance(last, ast.Expr) and not isinstance(last.value, ast.Constant):
        return [Edit(path, last.lineno, (f"{indent}return {text.strip()}",))]
    if isinstance(last, ast.Assign) and len(last.targets) == 1 and isinstance(last.targets[0], ast.Name):
        return [Edit(path, last.lineno, (text, f"{indent}return {last.targets[0].id}"))]
    return []


def reply_of(edits: Sequence[Edit], files: Mapping[str, str]) -> str:
    """The edits applied, as a reply of the corrected definitions of the functions they touch
    ("" when an edit is outside a function)."""
    changed = dict(files)
    touched: dict[str, list[tuple[str, str]]] = {}
    for edit in sorted(edits, key=lambda e: (e.file, -e.line)):  # from the bottom: lines above keep their numbers
        found = function_at(files[edit.file], edit.line)
        if found is None:
            return ""
        owner, node = found
        if (owner, node.name) not in touched.setdefault(edit.file, []):
            touched[edit.file].append((owner, node.name))
        lines = changed[edit.file].splitlines()
        changed[edit.file] = "\n".join([*lines[: edit.line - 1], *edit.lines, *lines[edit.line:]]) + "\n"
    blocks = []
    for path, names in touched.items():
        lines = changed[path].splitlines()
        for owner, node in project_functions(changed[path]):
            if (owner, node.name) in names:
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                body = "\n".join(lines[start - 1: node.end_lineno or node.lineno])
                blocks.append(f"# {path}\n" + (f"class {owner}:\n" if owner else "") + body)
    return "".join(f"```python\n{block}\n```\n" for block in blocks)


def _expression(text: str) -> ast.expr | None:
    try:
        return ast.parse(text, mode="eval").body
    except SyntaxError:
        return None


def _statement(text: str) -> ast.Module | None:
    """A line of code parsed alone (a compound statement's header given an empty body)."""
    for attempt in (text, text + " pass"):
        try:
            return ast.parse(attempt)
        except SyntaxError:
            continue
    return None
