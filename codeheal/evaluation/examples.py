"""Asserts mined from the examples a task text writes: `codeheal solve` checks them beside the
user's tests (ModuleSettings.task_examples), and the HumanEval benchmark's visible tests are
exactly these.

``>>>`` doctests first (read with the standard library's doctest parser). A text with none is
read for the examples written in prose (HumanEval's forms):

- a call of the entry point followed by its value: ``call == value``, ``call => value``,
  ``call ➞ value``, ``call # => value``, ``call returns value``, ``call should return value``,
  or, below an "Example" heading or in a prompt with no heading, ``call = value``; the call may
  follow a word (``for call == value``, ``assert call => value``); a value written as arithmetic
  that ends in its result (``-> 19 - 5 - 6 = 8``) counts when the arithmetic is right;
- ``Input: <arguments>`` then ``Output: <value>``, the arguments bare (``Input: [4,2,3]``) or
  named (``arr = [1], k = 3``, or one ``name : value`` per line);
- ``For <name> = <value>[, ...] the output (result) should be <value>``.

Named arguments become positional ones in the signature's order, and only when every name is a
parameter. Only examples whose arguments and expected value are Python literals become asserts.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import functools
import operator
import re
from collections.abc import Callable
from typing import Any, Literal

from codeheal.evaluation.checks import added_check_names, checks_after
from codeheal.state import State
from codeheal.syntax import parse_code

ExampleSource = Literal["doctest", "inline", "none"]
SEPARATOR = re.compile(r"\s*(?:#\s*)?(?P<sep>==>|=>|->|➞|==|=|returns|should return)\s*(?P<value>.+)$")
"""What joins a call to its value on an example line, in the text or after a comment's `#`."""
EXAMPLES_HEADING = re.compile(r"example", re.IGNORECASE)
LOWERCASE_BOOLS = {"true": "True", "false": "False"}
INPUT = re.compile(r"^\s*Input\s*:\s*(?P<args>.*)$")
OUTPUT = re.compile(r"^\s*Output\s*:\s*(?P<value>.+)$")
FOR_SHOULD_BE = re.compile(r"\bFor (?P<args>.+?),?\s+the (?:output|result) should be\s+(?P<value>.+)$", re.IGNORECASE)
NAMED_LINE = re.compile(r"^\s*(?P<name>[A-Za-z_]\w*)\s*:\s*(?P<value>.+)$")
ARITHMETIC: dict[type, Callable[..., Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.USub: operator.neg, ast.UAdd: operator.pos,
}


def example_checks(prompt: str, entry_point: str) -> tuple[list[str], ExampleSource]:
    """Asserts mined from the prompt's examples, and where they came from: "doctest",
    "inline" (prose) or "none"."""
    checks = _doctest_checks(prompt)
    if checks:
        return checks, "doctest"
    checks = _unique(
        _call_checks(prompt, entry_point)
        + _input_output_checks(prompt, entry_point)
        + _for_checks(prompt, entry_point)
    )
    return (checks, "inline") if checks else ([], "none")


def _unique(checks: list[str | None]) -> list[str]:
    return list(dict.fromkeys(c for c in checks if c))


def _doctest_checks(prompt: str) -> list[str]:
    checks: list[str | None] = []
    for example in _doctest_examples(prompt):
        want = _before_docstring_end(example.want)
        checks.append(_assert(example.source, want) if want.strip() else _comparison(example.source))
    return _unique(checks)


def _doctest_examples(text: str) -> list[doctest.Example]:
    """The text's doctest examples. Doctest refuses a whole text for one example whose output is
    less indented than its `>>>` (a fence right below a docstring): then each paragraph is read
    alone, cut at its first line that breaks it."""
    parser = doctest.DocTestParser()
    try:
        return parser.get_examples(text)
    except ValueError:
        pass
    examples: list[doctest.Example] = []
    for paragraph in re.split(r"\n[ \t]*\n", text):
        lines = paragraph.splitlines()
        while lines:
            try:
                examples += parser.get_examples("\n".join(lines))
                break
            except ValueError:
                lines.pop()
    return examples


def _before_docstring_end(want: str) -> str:
    """The expected output without the closing quotes doctest reads as part of it."""
    kept = []
    for line in want.splitlines():
        if line.strip().startswith(('"""', "'''")):
            break
        kept.append(line)
    return "\n".join(kept)


def _comparison(source: str) -> str | None:
    """`>>> f(x) == y` written with no output line: the comparison itself is the check."""
    try:
        node = parse_code(source.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(node, ast.Compare) and [type(op) for op in node.ops] == [ast.Eq]:
        return _assert(ast.unparse(node.left), ast.unparse(node.comparators[0]))
    return None


def _call_checks(prompt: str, entry_point: str) -> list[str | None]:
    """`call <separator> value` lines. A bare `=` also writes definitions (`tri(1) = 3` in a
    recurrence), so it counts only below the prompt's last line that mentions an example."""
    lines = prompt.splitlines()
    headings = [i for i, line in enumerate(lines) if EXAMPLES_HEADING.search(line)]
    examples_start = headings[-1] if headings else 0
    checks: list[str | None] = []
    for index, line in enumerate(lines):
        found = _call_then_rest(line, entry_point)
        if found is None:
            continue
        call, rest = found
        match = SEPARATOR.match(rest)
        if not match or (match["sep"] == "=" and index < examples_start):
            continue
        value = _prose_value(match["value"])
        checks.append(_assert(call, LOWERCASE_BOOLS.get(value.rstrip(".").lower(), _arithmetic_result(value))))
    return checks


def _call_then_rest(line: str, entry_point: str) -> tuple[str, str] | None:
    """The first call of the entry point in the line (at its start or after a word) and the
    text after it."""
    match = re.search(rf"(?:^|(?<=[\s(]))(?<![\w.]){re.escape(entry_point)}\(", line)
    if not match:
        return None
    before = line[: match.start()].strip().lower()
    if not (re.fullmatch(r"\W*", before) or before in ("for", "assert", "e.g.")):
        return None
    for end in range(match.end(), len(line) + 1):
        if line[end - 1] == ")" and _parses(line[match.start() : end]):
            return line[match.start() : end], line[end:]
    return None


def _arithmetic_result(value: str) -> str:
    """`19 - 5 - 6 = 8` -> `8` when the arithmetic is right; any other text as it is."""
    left, sep, right = value.rpartition("=")
    if not sep or left.rstrip().endswith(("=", "!", "<", ">")):
        return value
    try:
        result = _literal(right.strip().rstrip("."))
        return repr(result) if _computed(parse_code(left.strip(), mode="eval").body) == result else value
    except (SyntaxError, ValueError, TypeError, ArithmeticError, MemoryError, RecursionError):
        return value


def _computed(node: ast.expr) -> Any:
    """The value of arithmetic on numbers (+ - * / // %, no powers); ValueError for anything else."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
        return ARITHMETIC[type(node.op)](_computed(node.left), _computed(node.right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in ARITHMETIC:
        return ARITHMETIC[type(node.op)](_computed(node.operand))
    raise ValueError("not arithmetic")


def _literal(text: str) -> Any:
    """ast.literal_eval of the text, parsed behind the project's parse lock."""
    return ast.literal_eval(parse_code(text.lstrip(" \t"), mode="eval"))


def _input_output_checks(prompt: str, entry_point: str) -> list[str | None]:
    """`Input:` (one line, or `name : value` lines below it) then `Output:`."""
    checks: list[str | None] = []
    arguments: list[str] | None = None
    for line in prompt.splitlines():
        if (start := INPUT.match(line)) is not None:
            arguments = [start["args"].strip()] if start["args"].strip() else []
        elif (end := OUTPUT.match(line)) is not None and arguments is not None:
            call = _call(prompt, entry_point, ", ".join(arguments))
            checks.append(_assert(call, _prose_value(end["value"])) if call else None)
            arguments = None
        elif arguments is not None and (named := NAMED_LINE.match(line)) is not None:
            arguments.append(f"{named['name']} = {named['value'].strip()}")
    return checks


def _for_checks(prompt: str, entry_point: str) -> list[str | None]:
    """`For lst = [1,2,3] the output should be 14`: the named arguments end at the last comma
    that leaves them a valid argument list (prose may follow them)."""
    checks: list[str | None] = []
    for line in prompt.splitlines():
        match = FOR_SHOULD_BE.search(line)
        if not match:
            continue
        pieces = match["args"].split(",")
        calls = (_call(prompt, entry_point, ",".join(pieces[:n])) for n in range(len(pieces), 0, -1))
        call = next((c for c in calls if c), None)
        checks.append(_assert(call, _prose_value(match["value"])) if call else None)
    return checks


def _call(prompt: str, entry_point: str, arguments: str) -> str | None:
    """`entry_point(arguments)` with named arguments put in the signature's order; None when
    the text is no argument list of literals or names a parameter the function lacks."""
    try:  # `arr = [1], k = 3` is keyword syntax
        call = parse_code(f"{entry_point}({arguments})", mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call):  # `1), g(2` closes the call early
        return None
    if not call.keywords:
        return ast.unparse(call)
    parameters = _parameters(prompt, entry_point)
    named = {k.arg: k.value for k in call.keywords}
    if call.args or None in named or not parameters or set(named) - set(parameters):
        return None
    if tuple(p for p in parameters if p in named) != parameters[: len(named)]:
        return None
    return f"{entry_point}({', '.join(ast.unparse(named[p]) for p in parameters[: len(named)])})"


@functools.lru_cache(maxsize=16)  # asked once per example line: the text is parsed once
def _parameters(prompt: str, entry_point: str) -> tuple[str, ...]:
    """The parameters of the text's `def entry_point(...)`: the text is Python, or holds the
    definition among prose (a task around a fenced stub)."""
    try:
        tree = parse_code(prompt)
    except SyntaxError:
        header = re.search(rf"^[ \t]*def {re.escape(entry_point)}\s*\(.*?\)[^:\n]*:", prompt, re.MULTILINE | re.DOTALL)
        try:
            tree = parse_code(header[0].strip() + " pass") if header else ast.Module(body=[], type_ignores=[])
        except SyntaxError:
            return ()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return tuple(a.arg for a in node.args.args)
    return ()


def _parses(text: str) -> bool:
    try:
        return isinstance(parse_code(text, mode="eval").body, ast.Call)
    except SyntaxError:
        return False


def _prose_value(text: str) -> str:
    """A value ending a sentence: `1.` is 1, not 1.0."""
    text = text.strip()
    return text[:-1] if re.fullmatch(r"-?\d+\.", text) else text


def _assert(call_text: str, want_text: str) -> str | None:
    """`assert <call> == <expected>` when the call has literal arguments and some prefix of
    the expected text is a literal (prose after the value is dropped); else None."""
    try:
        call = parse_code(call_text.strip(), mode="eval").body
    except SyntaxError:
        return None
    if not _literal_call(call):
        return None
    expected = _literal_prefix(want_text.strip())
    if expected is None:
        return None
    return f"assert {ast.unparse(call)} == {expected}"


def _literal_call(node: ast.expr) -> bool:
    """A call (possibly wrapped, like `round(f(x), 2)`) whose every name is a function name."""
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    if not calls or any(isinstance(c.func, ast.Name) and c.func.id == "print" for c in calls):
        return False
    called = {id(c.func) for c in calls}
    return all(
        id(n) in called or isinstance(n, ast.Attribute)
        for n in ast.walk(node)
        if isinstance(n, ast.Name)
    )


def _literal_prefix(text: str) -> str | None:
    """The longest literal the text starts with, when only prose or punctuation follows it
    (``8 - 2 = 6`` is arithmetic, not the value 8)."""
    text = text.rstrip()
    for end in range(len(text), 0, -1):
        if not _only_prose_after(text, end):
            continue
        try:
            value = _literal(text[:end])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        return repr(value)
    return None


def _only_prose_after(text: str, end: int) -> bool:
    rest = text[end:].lstrip()
    if not rest:
        return True
    if rest[0] in ".,;:":
        return len(rest) == 1 or rest[1].isspace()
    return text[end].isspace() and (rest[0].isalpha() or rest[0] in "(#")


def task_checks(task: str, tests: ast.Module, functions: list[str]) -> list[str]:
    """The asserts the task text's examples add to the tests: those (example_checks, for each
    of `functions`) that call one of them and whose call no assert of the tests already makes
    (where an example and a test disagree, the test decides)."""
    asserted = {ast.dump(n) for a in ast.walk(tests) if isinstance(a, ast.Assert) for n in ast.walk(a) if isinstance(n, ast.Call)}
    added: list[str] = []
    for function in functions:
        for check in example_checks(task, function)[0]:
            call = parse_code(check).body[0].test.left  # `assert CALL == VALUE`
            calls = {n.func.id for n in ast.walk(call) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
            if function in calls and ast.dump(call) not in asserted:
                asserted.add(ast.dump(call))
                added.append(check)
    return added


def user_checks(state: State) -> str:
    """What every candidate must pass and the prompts show: the user's tests, then the task's
    checks (state's task_checks; their lines after the tests' own)."""
    checks = state.task_checks
    return checks_after(state.tests, _block(checks)) if checks else state.tests


def task_check_names(state: State) -> frozenset[str]:
    """The names the task's checks have among the checks user_checks(state) runs."""
    checks = state.task_checks
    return added_check_names(state.tests, _block(checks)) if checks else frozenset()


def _block(checks: list[str]) -> str:
    return "\n".join(checks) + "\n"


def called_functions(tests: ast.Module) -> list[str]:
    """The functions the tests call by a plain name they neither define, import nor take from
    the builtins: the candidate's, in order of first use."""
    own = {n.name for n in ast.walk(tests) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    own |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tests) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    own |= {t.id for n in ast.walk(tests) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    names = (n.func.id for n in ast.walk(tests) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
    return list(dict.fromkeys(name for name in names if name not in own and not hasattr(builtins, name)))
