"""A project module that does not parse (a syntax slip: a missing `:`, an unclosed or stray
bracket, a missing comma, `=` for `==`, a bad indent, a misspelt keyword), which keeps the tests
from being collected: where the parser stopped (the failing run's location), the screen's cheap
repairs (one edit on or just before that line that makes the module parse, no model call), and
the region around the line that the model corrects, spliced back.

A test file that does not parse is no slip of the project's: the run stays refused (exit 2)."""

from __future__ import annotations

import difflib
import keyword
import re
from collections.abc import Iterator, Mapping, Sequence

from typing_extensions import TypedDict

from codeheal.forms.project.test_paths import is_test_file
from codeheal.state import CheckFailure, Feedback, Frame
from codeheal.syntax import parse_code

SLIP_ERROR = re.compile(r"\b(?:SyntaxError|IndentationError|TabError)\b")
LOCATION = re.compile(r"\((?P<path>[^()]+), line (?P<line>\d+)\)\s*$|File \"(?P<file>[^\"]+)\", line (?P<at>\d+)",
                      re.MULTILINE)
"""Where a syntax error says the parser stopped: str(SyntaxError), `expected ':' (/path/mod.py,
line 9)`, or pytest's collection error, `File "/path/mod.py", line 9`."""
REGION = 6
"""Lines on each side of the parser's line that the model sees and may change."""
SCREEN_REPAIRS = 12
"""The cheap repairs the screen tests at most."""
TRIES = 600
"""Edited texts parsed at most while looking for them (each parse reads the whole module)."""
FENCED = re.compile(r"```[\w+-]*\n(.*?)(?:```|\Z)", re.DOTALL)
NUMBERED = re.compile(r"^ *\d+ \| ?")
"""A line as the prompt numbers it: `  12 | code`."""
CLOSERS = {"(": ")", "[": "]", "{": "}"}
INSERTS = (":", ",", ")", "]", "}", "(", '"', "'")


class Slip(TypedDict):
    """A project module that does not parse, where the parser stopped."""

    file: str
    line: int
    exception: str
    message: str
    """The parser's message, without its location: `expected ':'`."""


def found_slip(feedback: Feedback, files: Mapping[str, str]) -> Slip | None:
    """The project module (not a test) whose syntax error a failure of the run reports (its
    message, or the run's error, names the module), as the host's parser places it; None when
    no failure is one, or the module parses here."""
    if not any(_reports_slip(failure) for failure in feedback["failures"]):
        return None
    reports = [failure["message"] for failure in feedback["failures"]] + [feedback["error"] or ""]
    for match in (match for report in reports for match in LOCATION.finditer(report)):
        path = _workspace_path(match["path"] or match["file"], files)
        if path is None or is_test_file(path):
            continue
        error = parse_error(files[path])
        if error is not None:
            return Slip(file=path, line=error.lineno or int(match["line"] or match["at"]),
                        exception=type(error).__name__, message=error.msg)
    return None


def with_location(failures: Sequence[CheckFailure], slip: Slip, files: Mapping[str, str]) -> list[CheckFailure]:
    """The failures, those the slip caused ending in a frame at the slip's line (the location
    a repair prompt, the scope and the suspicious lines read)."""
    lines = files[slip["file"]].splitlines()
    source = lines[slip["line"] - 1].strip() if slip["line"] <= len(lines) else ""
    frame = Frame(file=slip["file"], line=slip["line"], function="<module>", source=source)
    return [CheckFailure(**{**f, "frames": [*f["frames"], frame]}) if _reports_slip(f) else f for f in failures]


def _reports_slip(failure: CheckFailure) -> bool:
    """Whether the failure is a syntax error (raised, or a collection error that shows one)."""
    return bool(SLIP_ERROR.fullmatch(failure["exception"]) or SLIP_ERROR.search(failure["message"]))


def parse_error(text: str) -> SyntaxError | None:
    """The parser's error in `text`; None when it parses."""
    try:
        parse_code(text)
    except SyntaxError as error:
        return error
    return None


def cheap_repairs(text: str) -> list[str]:
    """Up to SCREEN_REPAIRS versions of the module `text` that parse, each one edit on the
    parser's line or the code line before it: the edits the parser's message names first (a
    `:`, the bracket it says is open, a comma, `==`, an indent), then any one-token insertion,
    deletion or keyword respelling, nearest the parser's column first. Empty when it parses."""
    error = parse_error(text)
    if error is None or not error.lineno:
        return []
    lines = text.splitlines(keepends=True)
    found: list[str] = []
    for tries, edited in enumerate(_edits(lines, error)):
        if tries >= TRIES or len(found) >= SCREEN_REPAIRS:
            break
        if edited not in found and edited != text and parse_error(edited) is None:
            found.append(edited)
    return found


def region(text: str, line: int) -> tuple[int, int]:
    """The first and last line (1-based) of the region around `line` the model corrects."""
    count = len(text.splitlines())
    return max(1, line - REGION), min(count, line + REGION)


def region_code(reply: str) -> str:
    """The corrected region in a model's reply: its first code block (a prefilled reply's may
    lack the closing fence), without line numbers the model copied from the prompt."""
    match = FENCED.search(reply)
    code = match[1] if match else reply
    lines = code.splitlines(keepends=True)
    if lines and all(NUMBERED.match(line) for line in lines if line.strip()):
        lines = [NUMBERED.sub("", line, count=1) for line in lines]
    return "".join(lines)


def spliced(text: str, line: int, corrected: str) -> str:
    """`text` with the region around `line` replaced by `corrected` (a single line replaces
    the parser's line alone); blank lines the model dropped or added are the original's."""
    lines = text.splitlines(keepends=True)
    new = [piece if piece.endswith("\n") else piece + "\n" for piece in corrected.splitlines(keepends=True)]
    first, last = (line, line) if len(new) == 1 else region(text, line)
    return "".join([*lines[:first - 1], *_blanks_kept(lines[first - 1:last], new), *lines[last:]])


def _blanks_kept(old: list[str], new: list[str]) -> list[str]:
    def key(line: str) -> str:  # indentation counts: a re-indented line is a change
        return line.rstrip() if line.strip() else ""

    matcher = difflib.SequenceMatcher(None, [key(o) for o in old], [key(n) for n in new], autojunk=False)
    kept: list[str] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or (tag == "delete" and not "".join(old[i1:i2]).strip()):
            kept += old[i1:i2]
        elif not (tag == "insert" and not "".join(new[j1:j2]).strip()):
            kept += new[j1:j2]
    return kept


def whole_file_reply(path: str, text: str) -> str:
    """`text` as a reply that replaces the module at `path` whole (edits.apply_reply)."""
    return f"```python\n# {path}\n{text}```\n"


def within_region(original: str, changed: str) -> bool:
    """Whether every line `changed` alters of the module `original` (which does not parse) lies
    in the region around the parser's line."""
    error = parse_error(original)
    if error is None or not error.lineno:
        return False
    first, last = region(original, error.lineno)
    matcher = difflib.SequenceMatcher(None, original.splitlines(), changed.splitlines(), autojunk=False)
    return all(first - 1 <= i1 and i2 <= last for tag, i1, i2, _, _ in matcher.get_opcodes() if tag != "equal")


def _workspace_path(reported: str, files: Mapping[str, str]) -> str | None:
    """The workspace path of a file the sandbox named by its absolute path."""
    matches = [p for p in files if p.endswith(".py") and (reported == p or reported.endswith("/" + p))]
    return max(matches, key=len) if matches else None


def _edits(lines: list[str], error: SyntaxError) -> Iterator[str]:
    index = min(error.lineno or 1, len(lines)) - 1
    column = max((error.offset or 1) - 1, 0)
    message = error.msg
    before = _code_line_before(lines, index)
    yield from _named_edits(lines, index, column, message, before)
    for at in (index, before):
        if at is not None:
            yield from _indents(lines, at)
            yield from _token_edits(lines, at, column if at == index else len(lines[at]))


def _named_edits(lines: list[str], index: int, column: int, message: str, before: int | None) -> Iterator[str]:
    """The edits the parser's message names."""
    line = lines[index]
    if "expected ':'" in message:
        yield _with_line(lines, index, _at_code_end(line, ":"))
    if match := re.search(r"'([(\[{])' was never closed", message):
        closer = CLOSERS[match[1]]
        yield _with_line(lines, index, _at_code_end(line, closer))
        code = _code(line)
        if code.rstrip().endswith(":"):
            cut = len(code.rstrip()) - 1
            yield _with_line(lines, index, line[:cut] + closer + line[cut:])
    if "unmatched" in message or "does not match" in message:
        yield _with_line(lines, index, line[:column] + line[column + 1:])
        if match := re.search(r"opening parenthesis '([(\[{])'", message):
            yield _with_line(lines, index, line[:column] + CLOSERS[match[1]] + line[column + 1:])
    if "forgot a comma" in message:
        for gap in (m.start() for m in re.finditer(r"(?<=\S) +(?=\S)", line) if m.start() >= column):
            yield _with_line(lines, index, line[:gap] + "," + line[gap:])
    if "'=='" in message:
        for match in re.finditer(r"(?<![=!<>:+\-*/%&|^@])=(?!=)", line):
            yield _with_line(lines, index, line[:match.start()] + "==" + line[match.end():])
    if "unterminated string" in message:
        quote = line[column] if column < len(line) and line[column] in "'\"" else '"'
        yield _with_line(lines, index, _at_code_end(line, quote, comments=False))
    if "indent" in message.lower() and before is not None:
        yield from _indents(lines, index)


def _indents(lines: list[str], index: int) -> Iterator[str]:
    """The line re-indented to each indent of the lines before it, and one level deeper than
    the code line just before."""
    line = lines[index]
    body = line.lstrip(" \t")
    if not body.strip():
        return
    seen: list[str] = []
    before = _code_line_before(lines, index)
    if before is not None:
        above = _indent(lines[before])
        seen += [above + "    ", above]
    for earlier in reversed(lines[:index]):
        if earlier.strip() and not earlier.lstrip().startswith("#"):
            seen.append(_indent(earlier))
    for indent in dict.fromkeys(seen):
        if indent != _indent(line):
            yield _with_line(lines, index, indent + body)


def _token_edits(lines: list[str], index: int, column: int) -> Iterator[str]:
    """One token inserted at, or one punctuation character deleted from, each boundary of the
    line (nearest `column` first), and a word respelt as the keyword it is closest to."""
    line = lines[index]
    code = _code(line)
    for word in re.finditer(r"[A-Za-z_]\w*", code):
        for kw in difflib.get_close_matches(word[0], keyword.kwlist, n=2, cutoff=0.75):
            if kw != word[0]:
                yield _with_line(lines, index, line[:word.start()] + kw + line[word.end():])
    end = len(code.rstrip())
    spots = sorted({m.start() for m in re.finditer(r"\b|(?<=\S)(?=\s)|(?<=[^\w\s])|(?=[^\w\s])", code[:end])} | {end},
                   key=lambda spot: (abs(spot - column), spot))
    for spot in spots:
        for token in INSERTS:
            yield _with_line(lines, index, line[:spot] + token + line[spot:])
        if spot < end and code[spot] in "()[]{}:,=":
            yield _with_line(lines, index, line[:spot] + line[spot + 1:])


def _code_line_before(lines: list[str], index: int) -> int | None:
    for at in range(index - 1, -1, -1):
        if lines[at].strip() and not lines[at].lstrip().startswith("#"):
            return at
    return None


def _with_line(lines: list[str], index: int, line: str) -> str:
    return "".join([*lines[:index], line, *lines[index + 1:]])


def _at_code_end(line: str, token: str, *, comments: bool = True) -> str:
    code = _code(line) if comments else line.rstrip("\r\n")
    end = len(code.rstrip())
    return line[:end] + token + line[end:]


def _code(line: str) -> str:
    """The line without a trailing comment (a `#` outside quotes) or its newline."""
    quote = None
    for at, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:at]
    return line.rstrip("\r\n")


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip(" \t"))]
