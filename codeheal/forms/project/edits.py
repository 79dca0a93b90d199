"""A model's reply as targeted edits to a project's files.

The reply holds one or more ```python blocks of corrected definitions: top-level functions, and
methods inside their class (`class Cart:` + `def total(self): ...` replaces `Cart.total`). Each
replaces the definition of the same qualified name in the project, and every other byte of
the file stays as it was. A block may name its file, on the line before the fence or as its
first line (`# shop/cart.py`); else the definition is looked up in the whole project, and an
ambiguous name is settled by the `--target` hint and the functions on the failing traceback.
A replacement's lines that only reformat the original (spacing, blank lines, a dropped comment)
keep the original's bytes (realign.py), and its docstring is the original's, so the diff shows
the real change and nothing else.

Policy, for a reply that does more than replace definitions:
- an import the new code needs is added below the module's imports when every name it binds is
  missing from the module; an import the module already has is left alone; one that would
  rebind a name the module defines is refused;
- a one-line import at the top level of a module, where the failing traceback points (an
  import error: a misspelled name or module), is replaced by the reply's import of the same
  kind (`from` the same module or of the same names, or a plain `import`), alone or beside
  definitions;
- a method re-indented or without its class is found by its name when that is unique;
  decorators the reply leaves off are kept from the original (models drop them); a
  replacement that evaluates anything new when defined (a decorator, default value or
  annotation the original does not have, other than a literal or a name) is refused
  (import_time.py);
- usage code (`if __name__ == "__main__":` in exactly that form, top-level asserts and calls) is ignored, and class
  statements other than methods are ignored when identical to the original's;
- a new plain top-level function beside a correction (a helper: no decorator, nothing new
  evaluated when defined, a name the module does not bind) is added before the function it
  serves, in that function's file;
- anything else (another new function, a changed module constant or class attribute) is refused,
  except in a whole-file reply: a block headed by its path replaces a file of at most
  FULL_FILE_MAX_BYTES bytes, when it runs nothing new at import (import_time.py);
- a module that does not parse (a syntax slip) is replaced whole, at any size, by a block
  headed by its path that parses and changes only the lines around where the parser stopped
  (syntax_slips.py).
A change that adds or alters a coding declaration, or adds control characters other than newline
and tab, is refused (source_text.py); so is a definition whose name Python reads as another
(NFKC: `ﬁx` is `fix`), which could replace a function the reply does not name. Refusals raise EditRejected, whose message is the
attempt's feedback."""

from __future__ import annotations

import ast
import re
import textwrap
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

import libcst as cst

from codeheal.errors import EditRejected, InputError
from codeheal.fences import FENCE, PYTHON_TAGS
from codeheal.forms.project.import_time import (
    added,
    def_time,
    import_time,
    is_main_guard,
)
from codeheal.forms.project.realign import realign
from codeheal.forms.project.source_text import refuse_unreadable
from codeheal.forms.project.syntax_slips import parse_error, within_region
from codeheal.forms.project.test_paths import is_test_file
from codeheal.state import ChangedDefinition
from codeheal.syntax import parse_code

FULL_FILE_MAX_BYTES = 4000
"""The largest file a reply may rewrite whole (about 100 lines): beyond it a rewrite risks
silent changes the diff reader must hunt for, and the prompt does not show such a file whole."""
NOT_PYTHON = "is not valid Python"
CHANGES_NOTHING = "the reply changes nothing"
"""Two refusals the next attempt's draws read (rewrites.py)."""
FIRST_LINE_PATH = re.compile(r"^#\s*(?:file:\s*)?(\S+\.py)\s*$", re.IGNORECASE)
PATH_LINE = re.compile(r"(?:^|\s)[*_#>`]*([\w./-]+\.py)`?[*_`]*:?\s*$")
"""A line before a fence that ends with a path: `shop/cart.py`, **cart.py**, In `cart.py`:"""

Definition = cst.FunctionDef | cst.ClassDef


@dataclass(frozen=True)
class Target:
    """A place to prefer for an ambiguous name: `--target FILE::FUNC`, or a traceback frame."""

    file: str
    function: str
    """Qualified (`Cart.total`) or bare (`total`) name."""
    line: int | None = None
    """A traceback frame's line in `file` (None for the --target): an import there that
    fails may be replaced."""


@dataclass(frozen=True)
class EditResult:
    """The files an edit changed (their full new text) and what changed in them."""

    files: dict[str, str]
    changed: list[ChangedDefinition]


@dataclass(frozen=True)
class ReplyBlock:
    """One Python block of a reply, and the file it names, if any."""

    code: str
    path: str | None


def parse_target(text: str) -> Target:
    """`FILE::FUNC` (the --target flag) as a Target; InputError when it is not that shape."""
    file, sep, function = text.partition("::")
    if not (sep and file.endswith(".py") and re.fullmatch(r"[\w.]+", function)):
        raise InputError(f"--target {text!r}: write FILE::FUNC, e.g. shop/cart.py::Cart.total")
    return Target(file.removeprefix("./"), function)


def reply_blocks(reply: str) -> list[ReplyBlock]:
    """The Python blocks of a reply, in order, each with the path it is headed by."""
    blocks = []
    for match in FENCE.finditer(reply):
        tag, body = match.group(1), match.group(2)
        if tag.lower() not in PYTHON_TAGS or not body.strip():
            continue
        code = textwrap.dedent(body).strip("\n") + "\n"
        first, _, rest = code.partition("\n")
        before = reply[:match.start()].rstrip().rsplit("\n", 1)[-1]
        if header := FIRST_LINE_PATH.match(first.strip()):
            code = rest.lstrip("\n")
        else:
            header = PATH_LINE.search(before)
        blocks.append(ReplyBlock(code, header.group(1) if header else None))
    return blocks


def canonical_reply(reply: str) -> str:
    """A reply as a project-form candidate: its Python blocks, each headed by the path it
    names (all apply_reply reads of a reply), or with none the reply itself, which apply_reply
    refuses with the reason."""
    blocks = reply_blocks(reply)
    if not blocks:
        return reply.strip()
    rendered = []
    for block in blocks:
        header = f"# {block.path}\n" if block.path else ""
        rendered.append(f"```python\n{header}{block.code}```\n")
    return "".join(rendered)


def paths_named(named: str, files: Mapping[str, str]) -> list[str]:
    """The workspace paths `named` can mean: itself, else those ending in `/named` (a model or
    a traceback may give only the file's name or a tail of its path)."""
    if named in files:
        return [named]
    return sorted(p for p in files if p.endswith("/" + named))


def import_at(code: str, line: int) -> str | None:
    """The one-line import statement at the top level of the module `code` at `line`
    (1-based), as written; None when the line holds anything else, or the module does not parse."""
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError:
        return None
    statement = _top_level_at(module, line)
    if statement is None or not _small(statement, cst.Import | cst.ImportFrom):
        return None
    return module.code_for_node(statement.with_changes(leading_lines=())).strip()


def written_code(reply: str) -> str:
    """The code of a reply's Python blocks, as the model wrote it (what the tamper scan reads)."""
    return "\n".join(block.code for block in reply_blocks(reply))


def apply_reply(files: Mapping[str, str], reply: str, *, hints: Sequence[Target] = ()) -> EditResult:
    """Apply the definitions in `reply` to the workspace `files` (path -> text).

    `hints`: the --target, then the project functions on the failing traceback, innermost
    first; they settle a name defined in several places. Raises EditRejected when the reply
    has no code, does not parse, defines something the project does not have, touches
    anything but definitions, or changes nothing."""
    blocks = reply_blocks(reply)
    if not blocks:
        raise EditRejected("no ```python block in the reply: send the corrected functions in one")
    project = _Edit(files, hints)
    for number, block in enumerate(blocks, 1):
        project.take(block, f"block {number}" if len(blocks) > 1 else "the reply")
    return project.result()


@dataclass
class _Statements:
    """A reply block's statements, sorted by what they would do to the project."""

    definitions: list[tuple[str, cst.FunctionDef]] = field(default_factory=list)
    """(class prefix such as "Cart.", function) for each definition to replace."""
    imports: list[cst.SimpleStatementLine] = field(default_factory=list)
    class_statements: list[tuple[str, str]] = field(default_factory=list)
    """(class qualname, code) of class-body statements that are not methods."""
    module_statements: list[str] = field(default_factory=list)
    """Code of module-level statements that are neither definitions, imports nor usage."""


@dataclass(frozen=True)
class _Found:
    file: str
    node: cst.FunctionDef
    qualname: str


def _outside_tests(found: list[_Found]) -> list[_Found]:
    return [f for f in found if not is_test_file(f.file)]


class _Edit:
    """One reply's edits of a workspace: the files parsed so far, and the edits collected."""

    def __init__(self, files: Mapping[str, str], hints: Sequence[Target]) -> None:
        self.files = files
        self.hints = hints
        self.modules: dict[str, cst.Module] = {}
        self.replacements: dict[str, dict[int, tuple[_Found, cst.FunctionDef]]] = {}
        self.imports: dict[str, list[cst.SimpleStatementLine]] = {}
        self.swaps: dict[str, dict[int, cst.SimpleStatementLine]] = {}
        """File -> the reply's import by the id of the failing import it replaces."""
        self.whole: dict[str, str] = {}
        self.helpers: dict[str, list[tuple[cst.FunctionDef, str]]] = {}
        """File -> the new helper functions a reply adds there, each before the function it serves."""

    def take(self, block: ReplyBlock, where: str) -> None:
        """Collect the edits of one reply block."""
        path = self._resolve_path(block.path, where) if block.path else None
        # A path that names no project file is a slip (small models copy example paths):
        # the definitions are then found by name, as in a block without a path.
        try:
            statements = _sort_statements(cst.parse_module(block.code).body)
        except cst.ParserSyntaxError as exc:
            raise EditRejected(
                f"{where} {NOT_PYTHON} (line {exc.raw_line}: {exc.message}); "
                "send complete function definitions"
            ) from exc
        if path is not None and parse_error(self.files[path]) is not None:
            self._unparsed_file(block.code, path, where)
            return
        for prefix, node in statements.definitions:
            if unicodedata.normalize("NFKC", node.name.value) != node.name.value:
                raise EditRejected(
                    f"{where} defines {prefix}{node.name.value}, a name Python reads as "
                    f"{unicodedata.normalize('NFKC', node.name.value)} (NFKC): write names as Python reads them"
                )
        if statements.module_statements:
            self._whole_file(block.code, path, statements.module_statements[0], where)
            return
        imports, swapped = self._swap_failing_imports(statements.imports, path, where)
        if not statements.definitions and not swapped:
            raise EditRejected(f"{where} defines no function or method: send the corrected definitions")
        new = [node for prefix, node in statements.definitions if not prefix and not self._exists(node, path)]
        replaced = [self._replace(prefix, node, path, where) for prefix, node in statements.definitions
                    if prefix or not any(node is n for n in new)]
        if new:
            self._add_helpers(new, path, replaced, where)
        touched = set(replaced)
        for owner, code in statements.class_statements:
            self._check_unchanged(owner, code, touched, where)
        for file in touched | swapped:
            self.imports.setdefault(file, []).extend(imports)

    def result(self) -> EditResult:
        """The changed files and definitions; EditRejected when nothing changed."""
        changed_files, changed = {}, []
        for file, text in self.whole.items():
            text = realign(self.files[file], text)
            if text != self.files[file]:
                changed_files[file] = text
                changed.append(ChangedDefinition(file=file, name=file, kind="file"))
        for file in sorted(set(self.replacements) | set(self.imports)):
            module = self.modules[file]
            edits = {key: (found, _realigned(module, found.node, node))
                     for key, (found, node) in self.replacements.get(file, {}).items()}
            swaps = self.swaps.get(file, {})
            new = _swapped(module, swaps).visit(_Replacer({key: node for key, (_, node) in edits.items()}))
            new = _with_helpers(new, self.helpers.get(file, []))
            added = _missing_imports(new, self.imports.get(file, []), file)
            new = _with_imports(new, added)
            if new.code == self.files[file]:
                continue
            changed_files[file] = new.code
            changed += [
                ChangedDefinition(file=file, name=found.qualname, kind="method" if "." in found.qualname else "function")
                for found, node in edits.values()
                if node is not found.node
            ]
            changed += [ChangedDefinition(file=file, name=module.code_for_node(i.with_changes(leading_lines=())).strip(),
                                          kind="import") for i in [*swaps.values(), *added]]
            changed += [ChangedDefinition(file=file, name=node.name.value, kind="helper")
                        for node, _ in self.helpers.get(file, [])]
        if not changed_files:
            raise EditRejected(
                f"{CHANGES_NOTHING}: its definitions are the project's as they are; "
                "change the code that makes the tests fail"
            )
        for file, text in changed_files.items():
            refuse_unreadable(file, self.files[file], text)
        return EditResult(changed_files, changed)

    def _exists(self, node: cst.FunctionDef, path: str | None) -> bool:
        """Whether a top-level function of the reply names a definition of the project (in
        `path` when given), as a function or a method sent without its class."""
        bare = node.name.value
        return bool(self._find(bare, path, lambda qualname: qualname == bare or qualname.endswith("." + bare)))

    def _add_helpers(self, new: list[cst.FunctionDef], path: str | None, replaced: list[str], where: str) -> None:
        """New top-level functions beside the reply's corrections: plain helpers (no decorator,
        nothing new evaluated when defined, a name the module does not bind) are added to the
        file of the block (its path, else the first function it corrects), before the function
        they serve; anything else is refused."""
        names = ", ".join(node.name.value for node in new)
        file = path if path in replaced else (replaced[0] if replaced else None)
        if file is None:
            raise EditRejected(
                f"{where} defines {names}, which is not in {path or 'the project'}: replace existing "
                "functions and methods only (a method inside its class); a new helper function only "
                "beside the function it corrects"
            )
        bound = _bound_names(self._module(file))
        for node in new:
            if node.decorators or def_time(_as_ast(node)) or node.name.value in bound:
                raise EditRejected(
                    f"{where} adds {node.name.value} to {file}, which is not a plain helper function (a decorator, "
                    "a default value or annotation that runs code, or a name the module binds already): "
                    "change existing functions only, or add a plain function"
                )
            self.helpers.setdefault(file, []).append((node, self._first_replaced(file)))

    def _first_replaced(self, file: str) -> str:
        """The qualified name of the first function the reply corrects in `file`."""
        found = [f for f, _ in self.replacements.get(file, {}).values()]
        return found[0].qualname if found else ""

    def _resolve_path(self, named: str, where: str) -> str | None:
        named = named.removeprefix("./")
        matches = paths_named(named, self.files)
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise EditRejected(f"{where} names {named}, which could be {', '.join(matches)}: give the full path")
        return None

    def _module(self, file: str) -> cst.Module:
        if file not in self.modules:
            try:
                self.modules[file] = cst.parse_module(self.files[file])
            except cst.ParserSyntaxError as exc:
                raise InputError(
                    f"{file} line {exc.raw_line}: the project's own file does not parse ({exc.message}); fix it first"
                ) from exc
        return self.modules[file]

    def _replace(self, prefix: str, node: cst.FunctionDef, path: str | None, where: str) -> str:
        """Record that `node` replaces its namesake; the file it lands in."""
        name = prefix + node.name.value
        bare = node.name.value
        found = self._find(bare, path, lambda qualname: qualname == name)
        if not prefix and not _outside_tests(found):  # a method sent without its class
            methods = self._find(bare, path, lambda qualname: qualname.endswith("." + name))
            if _outside_tests(methods) or not found:  # the code's methods before the tests' functions
                found = methods
        if not found:
            raise EditRejected(
                f"{where} defines {name}, which is not in {path or 'the project'}: replace existing "
                "functions and methods only (a method inside its class), without adding new ones"
            )
        chosen = self._choose(found, name, where)
        if chosen.file in self.whole:
            raise EditRejected(f"{where} edits {chosen.file}, which another block rewrites whole: send one of them")
        if not node.decorators and chosen.node.decorators:
            node = node.with_changes(decorators=chosen.node.decorators)
        _check_def_time(chosen, node, where)
        node = node.with_changes(leading_lines=chosen.node.leading_lines)
        self.replacements.setdefault(chosen.file, {})[id(chosen.node)] = (chosen, node)
        return chosen.file

    def _swap_failing_imports(
        self, imports: list[cst.SimpleStatementLine], path: str | None, where: str
    ) -> tuple[list[cst.SimpleStatementLine], set[str]]:
        """Record each of the reply's `imports` that replaces a failing import (failing_imports:
        in `path` if given, else in any file) with one of its kind, unless the module has it
        already; return the imports left and the files changed."""
        left, files = [], set()
        for statement in imports:
            code = cst.Module(body=[]).code_for_node(statement).strip()
            for file, old in self._failing_imports(path):
                module = self.modules[file]
                if _same_kind(old, statement) and code not in _import_codes(module) and id(old) not in self.swaps.get(file, {}):
                    _check_rebinding(module, old, statement, file)
                    self.swaps.setdefault(file, {})[id(old)] = statement.with_changes(leading_lines=old.leading_lines)
                    files.add(file)
                    break
            else:
                left.append(statement)
        if files & set(self.whole):
            raise EditRejected(f"{where} edits {', '.join(sorted(files & set(self.whole)))}, which another block rewrites whole: send one of them")
        return left, files

    def _failing_imports(self, path: str | None) -> list[tuple[str, cst.SimpleStatementLine]]:
        """The one-line top-level imports the traceback points at (the hints' lines), innermost
        first, in `path` only when given."""
        found = []
        for hint in self.hints:
            if hint.line is None or hint.file not in self.files or (path is not None and hint.file != path):
                continue
            statement = _top_level_at(self._module(hint.file), hint.line)
            if statement is not None and _small(statement, cst.Import | cst.ImportFrom):
                found.append((hint.file, cast(cst.SimpleStatementLine, statement)))
        return found

    def _find(self, bare: str, path: str | None, wanted: Callable[[str], bool]) -> list[_Found]:
        """The functions named `bare` whose qualified name is `wanted`, in `path` or anywhere."""
        files = [path] if path else sorted(p for p in self.files if p.endswith(".py"))
        written = re.compile(rf"\bdef\s+{re.escape(bare)}\b")  # parse only files that can hold it
        found = []
        for file in filter(lambda f: written.search(self.files[f]), files):
            for qualname, nodes in _definitions(self._module(file)).items():
                if wanted(qualname):
                    found += [_Found(file, n, qualname) for n in nodes if isinstance(n, cst.FunctionDef)]
        return found

    def _choose(self, found: list[_Found], name: str, where: str) -> _Found:
        # The tests are never edited, so their definitions of a name do not make it ambiguous.
        found = _outside_tests(found) or found
        if len(found) == 1:
            return found[0]
        for hint in self.hints:
            preferred = [f for f in found if _matches(hint, f)]
            if len(preferred) > 1 and hint.line is not None:  # a traceback's method: the one its line is in
                preferred = [f for f in preferred if _qualname_at(self.files[f.file], hint.line) == f.qualname]
            if len(preferred) == 1:
                return preferred[0]
        places = ", ".join(f"{f.file}::{f.qualname}" for f in found)
        raise EditRejected(
            f"{where} defines {name}, which is defined in several places ({places}): put the "
            "file's path on the block's first line, e.g. `# path/to/file.py`"
        )

    def _check_unchanged(self, owner: str, code: str, files: set[str], where: str) -> None:
        """A class statement other than a method must be the original's, unchanged."""
        for file in files:
            for node in _definitions(self._module(file)).get(owner, []):
                if isinstance(node, cst.ClassDef) and code in _body_codes(self.modules[file], node):
                    return
        raise EditRejected(
            f"{where} changes `{code.splitlines()[0]}` in class {owner}: only methods can be "
            "replaced; leave class attributes out of the reply"
        )

    def _whole_file(self, code: str, path: str | None, statement: str, where: str) -> None:
        what = statement.splitlines()[0]
        if path is None:
            raise EditRejected(
                f"{where} changes `{what}`, which is not a function or method: send only the "
                "corrected functions (a whole file needs its path on the block's first line)"
            )
        size = len(self.files[path].encode())
        if size > FULL_FILE_MAX_BYTES:
            raise EditRejected(
                f"{where} rewrites {path} ({size:,} bytes) whole, changing `{what}`; only files up "
                f"to {FULL_FILE_MAX_BYTES:,} bytes may be rewritten: send only the corrected functions"
            )
        if path in self.replacements or path in self.imports:
            raise EditRejected(f"{where} rewrites {path} whole, which another block edits: send one of them")
        new = added(import_time(self.files[path]), import_time(code))
        if new:
            raise EditRejected(
                f"{where} rewrites {path} with code that runs when it is imported: `{new[0].splitlines()[0]}`; "
                "a repair changes what the functions do when called, not what runs at import"
            )
        self.whole[path] = code


    def _unparsed_file(self, code: str, path: str, where: str) -> None:
        """A module that does not parse (a syntax slip) replaced whole, at any size, by a block
        that parses and changes only the lines around where the parser stopped."""
        if not within_region(self.files[path], code):
            raise EditRejected(
                f"{where} changes lines of {path} away from where it does not parse: correct only the "
                "lines around the syntax error"
            )
        if path in self.replacements or path in self.imports or path in self.whole:
            raise EditRejected(f"{where} rewrites {path} whole, which another block edits: send one of them")
        self.whole[path] = code


def _check_def_time(found: _Found, replacement: cst.FunctionDef, where: str) -> None:
    """Refuse a replacement that evaluates something new when it is defined: a decorator, a
    default value or an annotation the original does not have (a literal or a name is fine)."""
    original = def_time(_as_ast(found.node))
    new = added(original, def_time(_as_ast(replacement)))
    if new:
        raise EditRejected(
            f"{where} changes {found.qualname}'s decorators, default values or annotations (`{new[0]}`), which run "
            "when the module is imported: keep the original's and change only the function's body"
        )


def _as_ast(node: cst.FunctionDef) -> ast.FunctionDef | ast.AsyncFunctionDef:
    code = textwrap.dedent(cst.Module(body=[]).code_for_node(node.with_changes(leading_lines=())))
    definition = parse_code(code).body[0]
    assert isinstance(definition, (ast.FunctionDef, ast.AsyncFunctionDef))
    return definition


def _realigned(module: cst.Module, original: cst.FunctionDef, replacement: cst.FunctionDef) -> cst.FunctionDef:
    """The replacement with the lines that only reformat the original given back the
    original's bytes (realign.py); the original node itself when nothing else changed."""
    before = module.code_for_node(original)
    after = realign(before, module.code_for_node(_keep_docstring(original, replacement)))
    if after == before:
        return original
    node = cast(cst.FunctionDef, cst.parse_statement(after, config=module.config_for_parsing))
    # the lines above it are the original's; parsed at the top level they would lose their nesting
    return node.with_changes(leading_lines=original.leading_lines)


def _keep_docstring(original: cst.FunctionDef, replacement: cst.FunctionDef) -> cst.FunctionDef:
    """The replacement with the original's docstring, or none where the original has none: a
    repair changes code, and models drop, shorten or invent docstrings (doctests included)."""
    if not isinstance(replacement.body, cst.IndentedBlock):
        return replacement
    body = list(replacement.body.body)
    if _docstring(replacement) is not None:
        body = body[1:]
    if _docstring(original) is not None:
        body = [original.body.body[0], *body]
    return replacement.with_changes(body=replacement.body.with_changes(body=body)) if body else replacement


def _docstring(node: cst.FunctionDef) -> cst.BaseStatement | None:
    first = node.body.body[0] if isinstance(node.body, cst.IndentedBlock) and node.body.body else None
    if first is not None and _small(first, cst.Expr) and isinstance(first.body[0].value, cst.SimpleString | cst.ConcatenatedString):
        return first
    return None


class _Replacer(cst.CSTTransformer):
    """Swaps the definitions keyed by the id of the original node."""

    def __init__(self, replacements: dict[int, cst.FunctionDef]) -> None:
        super().__init__()
        self.replacements = replacements

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        return self.replacements.get(id(original_node), updated_node)


def _qualname_at(source: str, line: int) -> str | None:
    """The qualified name (`Cart.total`) of the function or method of `source` (at the top level
    or in classes, as _definitions has them) that holds `line`."""
    try:
        body: Sequence[ast.stmt] = parse_code(source).body
    except SyntaxError:
        return None
    prefix = ""
    while True:
        holding = [node for node in body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                   and node.lineno <= line <= (node.end_lineno or node.lineno)]
        if not holding:
            return None
        if not isinstance(holding[0], ast.ClassDef):
            return prefix + holding[0].name
        prefix, body = prefix + holding[0].name + ".", holding[0].body


def _matches(hint: Target, found: _Found) -> bool:
    file = found.file
    same_file = file == hint.file or file.endswith("/" + hint.file) or hint.file.endswith("/" + file)
    return same_file and hint.function in (found.qualname, found.qualname.rsplit(".", 1)[-1])


def _definitions(module: cst.Module) -> dict[str, list[Definition]]:
    """Functions and classes by qualified name: top level, and inside classes at any depth."""
    found: dict[str, list[Definition]] = {}

    def walk(body: Sequence[cst.CSTNode], prefix: str) -> None:
        for statement in body:
            if isinstance(statement, cst.FunctionDef | cst.ClassDef):
                found.setdefault(prefix + statement.name.value, []).append(statement)
            if isinstance(statement, cst.ClassDef):
                walk(statement.body.body, prefix + statement.name.value + ".")

    walk(module.body, "")
    return found


def _body_codes(module: cst.Module, node: cst.ClassDef) -> set[str]:
    return {module.code_for_node(statement).strip() for statement in node.body.body}


def _sort_statements(body: Sequence[cst.BaseStatement]) -> _Statements:
    out = _Statements()
    empty = cst.Module(body=[])

    def walk_class(node: cst.ClassDef, prefix: str) -> None:
        for statement in node.body.body:
            if isinstance(statement, cst.FunctionDef):
                out.definitions.append((prefix, statement))
            elif isinstance(statement, cst.ClassDef):
                walk_class(statement, prefix + statement.name.value + ".")
            elif not _is_filler(statement):
                out.class_statements.append((prefix.rstrip("."), empty.code_for_node(statement).strip()))

    for statement in body:
        if isinstance(statement, cst.FunctionDef):
            out.definitions.append(("", statement))
        elif isinstance(statement, cst.ClassDef):
            walk_class(statement, statement.name.value + ".")
        elif _small(statement, cst.Import | cst.ImportFrom):
            out.imports.append(statement)
        elif not _is_usage(statement):
            out.module_statements.append(empty.code_for_node(statement).strip())
    return out


def _small(statement: cst.CSTNode, kinds: type | tuple[type, ...]) -> bool:
    """Whether `statement` is a one-line statement made only of `kinds`."""
    return isinstance(statement, cst.SimpleStatementLine) and all(isinstance(s, kinds) for s in statement.body)


def _is_filler(statement: cst.CSTNode) -> bool:
    """A docstring, `pass` or `...`: says nothing about what to change."""
    if _small(statement, cst.Pass):
        return True
    return _small(statement, cst.Expr) and all(
        isinstance(s.value, cst.SimpleString | cst.ConcatenatedString | cst.Ellipsis) for s in statement.body
    )


def _is_usage(statement: cst.CSTNode) -> bool:
    """Code a model appends to try its answer: a main guard, top-level asserts and calls."""
    if isinstance(statement, cst.If):
        test = parse_code(cst.Module(body=[]).code_for_node(statement.test), mode="eval").body
        return is_main_guard(test) and statement.orelse is None
    return _small(statement, cst.Assert | cst.Expr | cst.Pass)


def _missing_imports(
    module: cst.Module, imports: list[cst.SimpleStatementLine], file: str
) -> list[cst.SimpleStatementLine]:
    """The reply's imports the module lacks; EditRejected for one that rebinds a module name."""
    existing = _import_codes(module)
    bound = _bound_names(module)
    added, seen = [], set()
    for statement in imports:
        code = module.code_for_node(statement).strip()
        if code in existing or code in seen:
            continue
        _check_binds(code, _import_names(statement), bound, file)
        added.append(statement.with_changes(leading_lines=[]))
        seen.add(code)
    return added


def _import_codes(module: cst.Module) -> set[str]:
    return {module.code_for_node(s).strip() for s in module.body if _small(s, cst.Import | cst.ImportFrom)}


def _top_level_at(module: cst.Module, line: int) -> cst.BaseStatement | None:
    """The top-level statement whose code spans `line` (1-based), not counting the comments and
    blank lines above it; None when the line is blank or a comment."""
    start = 1 + len(module.header)
    for statement in module.body:
        lines = module.code_for_node(statement).count("\n")
        if start + len(statement.leading_lines) <= line < start + lines:
            return statement
        start += lines
    return None


def _same_kind(old: cst.SimpleStatementLine, new: cst.SimpleStatementLine) -> bool:
    """Whether `new` can replace the failing import `old`: both plain imports, or both `from`
    imports of the same module (`from pkg.mod import NAEM` becomes `from pkg.mod import NAME`)
    or of the same names (`from pkg.mdo import NAME` becomes `from pkg.mod import NAME`)."""
    if len(old.body) != 1 or len(new.body) != 1:
        return False
    before, after = old.body[0], new.body[0]
    if isinstance(before, cst.Import) and isinstance(after, cst.Import):
        return True
    if isinstance(before, cst.ImportFrom) and isinstance(after, cst.ImportFrom):
        return _source(before) == _source(after) or _import_names(old) == _import_names(new)
    return False


def _source(statement: cst.ImportFrom) -> str:
    """The module a `from` import reads, as written (`.`s included)."""
    module = cst.Module(body=[]).code_for_node(statement.module) if statement.module else ""
    return "." * len(statement.relative) + module


def _check_rebinding(module: cst.Module, old: cst.SimpleStatementLine, new: cst.SimpleStatementLine, file: str) -> None:
    """EditRejected when the import replacing `old` binds a name the module defines otherwise."""
    _check_binds(module.code_for_node(new).strip(), _import_names(new), _bound_names(module, leaving=old), file)


def _check_binds(code: str, names: set[str] | None, bound: set[str], file: str) -> None:
    """EditRejected for an import `code` (binding `names`; None: a star import) that would
    bind a star or rebind a name of `bound`, which `file` defines."""
    if names is None:
        raise EditRejected(f"`{code}` is a star import: import the names the code uses")
    clash = sorted(names & bound)
    if clash:
        raise EditRejected(
            f"`{code}` rebinds {', '.join(clash)}, which {file} already defines: use the "
            "module's own name, or import under a new one"
        )


def _swapped(module: cst.Module, swaps: Mapping[int, cst.SimpleStatementLine]) -> cst.Module:
    """The module with the top-level statements keyed by id in `swaps` replaced."""
    if not swaps:
        return module
    return module.with_changes(body=[swaps.get(id(statement), statement) for statement in module.body])


def _import_names(statement: cst.SimpleStatementLine) -> set[str] | None:
    """The names an import statement binds; None for a star import."""
    names = set()
    for small in statement.body:
        if isinstance(small.names, cst.ImportStar):
            return None
        for alias in small.names:
            if alias.asname is not None:
                names.add(cst.Module(body=[]).code_for_node(alias.asname.name))
            elif isinstance(small, cst.Import):
                names.add(cst.Module(body=[]).code_for_node(alias.name).split(".")[0])
            else:
                names.add(alias.name.value)
    return names


def _bound_names(module: cst.Module, leaving: cst.BaseStatement | None = None) -> set[str]:
    """Names the module binds at top level: definitions, imports and assigned names (those of
    the statement `leaving` left out)."""
    names: set[str] = set()
    for statement in module.body:
        if statement is leaving:
            continue
        if isinstance(statement, cst.FunctionDef | cst.ClassDef):
            names.add(statement.name.value)
        elif _small(statement, cst.Import | cst.ImportFrom):
            names |= _import_names(statement) or set()
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else (
                    [small.target] if isinstance(small, cst.AnnAssign | cst.AugAssign) else []
                )
                names |= {t.value for t in targets if isinstance(t, cst.Name)}
    return names


def _with_helpers(module: cst.Module, helpers: list[tuple[cst.FunctionDef, str]]) -> cst.Module:
    """The module with each new helper function before the top-level statement defining the
    function it serves (its class, for a method), two blank lines apart; at the end when none."""
    body = list(module.body)
    for node, serves in helpers:
        top = serves.split(".", 1)[0]
        at = next((i for i, statement in enumerate(body)
                   if isinstance(statement, cst.FunctionDef | cst.ClassDef) and statement.name.value == top), len(body))
        blank = [cst.EmptyLine(), cst.EmptyLine()] if at else []
        body.insert(at, node.with_changes(leading_lines=blank))
        if at < len(body) - 1:
            follower = body[at + 1]
            body[at + 1] = follower.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine(), *[
                line for line in follower.leading_lines if line.comment is not None]])
    return module.with_changes(body=body)


def _with_imports(module: cst.Module, added: list[cst.SimpleStatementLine]) -> cst.Module:
    """The module with `added` after its last top-level import (else after its docstring)."""
    if not added:
        return module
    body = list(module.body)
    position = 0
    for index, statement in enumerate(body):
        if _small(statement, cst.Import | cst.ImportFrom) or (index == 0 and _is_filler(statement)):
            position = index + 1
    return module.with_changes(body=body[:position] + added + body[position:])
