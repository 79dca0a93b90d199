"""Line-level repair candidates: one suspicious line rewritten, the rest of its function kept.

For a line of a project function the model is given the function up to that line as the
start of its reply, then a comment that names the line as the one to correct (small models
otherwise copy the line they were shown) and the line's indentation; it writes that one line
and generation stops at its end. The candidate is the function with that line replaced (the
comment left out), written as a reply of corrected definitions (`# path`, the `class` line
for a method, the function), so it is applied, deduplicated and tested like any other reply."""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from codeheal.forms.project.mutations import def_line_defaults, function_ingredients, local_names
from codeheal.forms.project.repair_context import project_functions
from codeheal.state import SuspiciousLine

LINE_END = ("\n",)
"""A line candidate's reply stops at the end of its line."""
LINE_HINT = "# the next line was `{original}`, which is wrong; corrected:"


@dataclass(frozen=True)
class LineSlot:
    """One line of a project function to rewrite on its own."""

    file: str
    line: int
    """1-based, in the file."""
    function: str
    """The function's qualified name (`Cart.total` for a method)."""
    head: str
    """The candidate up to the line: the fence, the path, the class line of a method and the
    function's lines before it."""
    before: str
    """The reply's start the model continues: `head`, the comment naming the line, the
    line's indentation."""
    after: str
    """The function's lines after it, to the end of the function."""
    original: str
    """The line as it is, without its indentation."""
    names: frozenset[str]
    """The function's local variables (mutations.local_names)."""
    ingredients: frozenset[str]
    """The function's short expressions (mutations.function_ingredients)."""

    def reply(self, written: str) -> str:
        """The corrected definition a line reply gives: `written` is the model's reply, its
        prefill (`before`) included or not; only its first line counts, at the original line's
        indentation, and a line written as a comment (following the hint's lead) counts as the
        code it holds."""
        line = written.removeprefix(self.before).split("\n", 1)[0].strip()
        line = line.lstrip("# ") if line.startswith("#") else line
        return f"{self.head}{self.indent}{line}\n{self.after}```\n"

    @property
    def indent(self) -> str:
        return self.before[len(self.before.rstrip(" \t")):]


def line_slots(
    ranking: Sequence[SuspiciousLine],
    files: Mapping[str, str],
    *,
    scope: Collection[tuple[str, str]] | None,
    limit: int,
) -> list[LineSlot]:
    """The first `limit` ranked lines that are statements in the body of a top-level function
    or a method of a top-level class whose (path, name) is in `scope` (None: any), or its `def`
    line when that holds a default the screen changes (mutations.def_line_defaults), as slots."""
    slots = []
    for entry in ranking:
        slot = _slot(entry["file"], entry["line"], files)
        if slot is None or (scope is not None and (slot.file, slot.function.rsplit(".", 1)[-1]) not in scope):
            continue
        slots.append(slot)
        if len(slots) == limit:
            break
    return slots


def functions_first(
    ranking: Sequence[SuspiciousLine], files: Mapping[str, str], functions: Collection[tuple[str, str]]
) -> list[SuspiciousLine]:
    """The ranking with the lines of the named functions ((path, name): the --target) before
    the others, each group in ranking order."""
    def named(entry: SuspiciousLine) -> bool:
        found = _enclosing(entry["file"], entry["line"], files)
        return found is not None and (entry["file"], found[1].name) in functions

    return sorted(ranking, key=lambda entry: not named(entry))


def _slot(path: str, number: int, files: Mapping[str, str]) -> LineSlot | None:
    found = _enclosing(path, number, files)
    if found is None:
        return None
    owner, node = found
    first = node.body[0]
    body_start = first.lineno
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body_start = (first.end_lineno or first.lineno) + 1  # after the docstring
    lines = files[path].splitlines()
    text = lines[number - 1]
    header = number == node.lineno and bool(def_line_defaults(node))  # a one-line `def`'s defaults
    if (number < body_start and not header) or not text.strip() or text.lstrip().startswith("#"):
        return None
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    end = node.end_lineno or node.lineno
    indent = text[: len(text) - len(text.lstrip())]
    head = f"```python\n# {path}\n" + (f"class {owner}:\n" if owner else "")
    head += "".join(f"{line}\n" for line in lines[start - 1: number - 1])
    before = f"{head}{indent}{LINE_HINT.format(original=text.strip())}\n{indent}"
    after = "".join(f"{line}\n" for line in lines[number: end])
    name = f"{owner}.{node.name}" if owner else node.name
    return LineSlot(file=path, line=number, function=name, head=head, before=before, after=after,
                    original=text.strip(), names=frozenset(local_names(node)),
                    ingredients=frozenset(function_ingredients(node, files[path])))


def _enclosing(
    path: str, number: int, files: Mapping[str, str]
) -> tuple[str, ast.FunctionDef | ast.AsyncFunctionDef] | None:
    """The top-level function, or method of a top-level class, whose lines hold `number`,
    with its class's name ("" for a function)."""
    for owner, function in project_functions(files.get(path, "")):
        if function.lineno <= number <= (function.end_lineno or function.lineno):
            return owner, function
    return None
