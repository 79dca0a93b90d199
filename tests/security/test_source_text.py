"""Files read and written as Python reads them: a module is the text its coding declaration
(PEP 263) decodes, edited, shown and checked as that text and written back, into the sandbox and
the project, in its own encoding; one whose bytes do not come back from that text is kept as
bytes, never edited, and read-only when it is a test; a change may not add or alter a coding
declaration, write a character the encoding cannot hold, nor add control characters a terminal
acts on; and whatever codeheal prints of code, diffs and progress shows such characters as
escapes."""

from __future__ import annotations

import ast
import io
from pathlib import Path

import pytest
from rich.console import Console

from codeheal.context import Context
from codeheal.errors import EditRejected
from codeheal.forms.project.edits import apply_reply
from codeheal.forms.project.job import project_job
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.diff import write_changes
from codeheal.forms.project.source_text import declared_coding, file_bytes, python_text, refuse_unreadable
from codeheal.forms.project.task import parse_test_command
from codeheal.printable import escaped
from codeheal.runner import _Narrator

SOURCE = '''"""Pricing."""


def discount(quantity: int) -> int:
    if quantity > 10:  # the bulk tier
        return 5
    return 0
'''
FIXED_BODY = "def discount(quantity: int) -> int:\n    if quantity >= 10:{comment}\n        return 5\n    return 0\n"
UTF7_HIDDEN = b"# coding: utf-7\ndef f():\n    return 1\n# +AAo-import os+ADs-os.system(+ACI-true+ACI-)\n"
"""What UTF-8 reads as a comment, Python (utf-7) reads as `import os; os.system("true")`."""


def reply(code: str, path: str = "shop/pricing.py") -> str:
    return f"```python\n# {path}\n{code}```\n"


DECLARATIONS = ["# coding: utf-7\n", "# -*- coding: latin-1 -*-\n", "#!/usr/bin/env python\n# vim: set fileencoding=utf-7 :\n",
                "\n# coding=utf-16\n", "# coding: utf-8\n", "#!/bin/python\n#coding:utf_7\n"]


@pytest.mark.parametrize("first_lines", DECLARATIONS)
def test_a_change_that_adds_a_coding_declaration_is_refused(first_lines: str) -> None:
    fixed = SOURCE.replace("quantity > 10", "quantity >= 10")
    with pytest.raises(EditRejected, match="adds a coding declaration"):
        refuse_unreadable("shop/pricing.py", SOURCE, first_lines + fixed)
    try:  # a whole-file reply: refused, or its added comment lines dropped as reformatting
        edit = apply_reply({"shop/pricing.py": SOURCE}, reply(first_lines + fixed))
    except EditRejected:
        return
    assert declared_coding(edit.files["shop/pricing.py"]) is None


@pytest.mark.parametrize("declared", ["latin-1", "ascii"])
def test_a_change_that_alters_a_coding_declaration_is_refused(declared: str) -> None:
    original = f"# -*- coding: {declared} -*-\n" + SOURCE
    rewritten = original.replace(declared, "utf-7").replace("quantity > 10", "quantity >= 10")
    with pytest.raises(EditRejected, match="changes its coding declaration"):
        refuse_unreadable("shop/pricing.py", original, rewritten)
    try:
        edit = apply_reply({"shop/pricing.py": original}, reply(rewritten))
        assert declared_coding(edit.files["shop/pricing.py"]) == declared
    except EditRejected as refused:
        assert "coding declaration" in str(refused)
    kept = apply_reply({"shop/pricing.py": original}, reply(FIXED_BODY.format(comment="")))
    assert kept.files["shop/pricing.py"].startswith(f"# -*- coding: {declared} -*-\n")


def test_declarations_are_found_where_python_looks() -> None:
    assert declared_coding("# coding: utf-7\n") == "utf-7"
    assert declared_coding("#!/bin/python\n# -*- coding: latin-1 -*-\n") == "latin-1"
    assert declared_coding("import os\n# coding: utf-7\n") is None, "line 2 counts only after a comment or blank"
    assert declared_coding("x = 1\n") is None
    assert declared_coding("\n\n# coding: utf-7\n") is None, "line 3 never counts"


@pytest.mark.parametrize(("data", "text"), [
    (UTF7_HIDDEN, None),  # its bytes do not come back from the text Python reads: kept as bytes
    (b"# -*- coding: latin-1 -*-\nx = 1\n", "# -*- coding: latin-1 -*-\nx = 1\n"),
    (b"# coding: ascii\nx = 1\n", "# coding: ascii\nx = 1\n"),
    (b"# coding: utf-8\nx = '\xc3\xa9'\n", "# coding: utf-8\nx = '\u00e9'\n"),
    (b"\xef\xbb\xbfx = 1\n", "\ufeffx = 1\n"),  # a BOM, kept
    (b"# coding: cp1252\nx = '\xc3\xa9'\n", "# coding: cp1252\nx = '\u00c3\u00a9'\n"),  # valid UTF-8, read as cp1252
    (b"# coding: gbk\nx = '\xd6\xd0'\n", "# coding: gbk\nx = '\u4e2d'\n"),  # not UTF-8 at all
    (b"# coding: no-such-codec\nx = 1\n", None),
    (b"x = '\xd6\xd0'\n", None),  # no declaration: UTF-8, which this is not
])
def test_a_module_is_the_text_python_reads(data: bytes, text: str | None) -> None:
    assert python_text("m.py", data) == text
    if text is not None:
        assert file_bytes("m.py", text) in (data, data.decode("utf-8", "replace"))  # written back as it was
    assert python_text("notes.txt", b"# coding: gbk\nx = 1\n") == "# coding: gbk\nx = 1\n", (
        "only Python modules are decoded by a declaration")


GBK = ("# -*- coding: gbk -*-\n\"\"\"\u4ef7\u683c (prices).\"\"\"\n\n\ndef discount(quantity):\n"
       "    label = \"\u6279\u91cf\"  # bulk\n    if quantity > 10:\n        return 5\n    return 0\n")


def test_a_module_declared_gbk_is_edited_as_python_reads_it_and_written_back_in_gbk(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "pricing.py").write_bytes(GBK.encode("gbk"))
    snapshot = read_project(tmp_path)
    assert snapshot.files["shop/pricing.py"] == GBK  # the text Python reads, which the diff shows
    fixed = GBK.replace("quantity > 10", "quantity >= 10")
    edit = apply_reply(snapshot.files, reply("def discount(quantity):\n    label = \"\u6279\u91cf\"  # bulk\n"
                                             "    if quantity >= 10:\n        return 5\n    return 0\n"))
    assert edit.files["shop/pricing.py"] == fixed
    job = project_job(edit.files, parse_test_command("pytest -q"), 10)
    assert job.files["shop/pricing.py"] == fixed.encode("gbk")  # the sandbox's copy: as Python reads it
    write_changes(tmp_path, edit.files, originals=snapshot.files, force=True)
    assert (tmp_path / "shop" / "pricing.py").read_bytes() == fixed.encode("gbk")


@pytest.mark.parametrize(("declared", "added"), [("latin-1", "\u2192"), ("gbk", "\U0001f600"), ("ascii", "\u00e9")])
def test_a_change_the_files_encoding_cannot_hold_is_refused(declared: str, added: str) -> None:
    original = f"# coding: {declared}\n" + SOURCE
    with pytest.raises(EditRejected, match=f"encoding \\({declared}\\) cannot hold"):
        apply_reply({"shop/pricing.py": original}, reply(FIXED_BODY.format(comment=f"  # {added}")))


def test_code_hidden_in_what_utf8_shows_as_a_string_is_code_in_what_codeheal_reads(tmp_path: Path) -> None:
    # The reported shape: UTF-8 shows one string, `"\u4e2d\\"; evil(); t = "`; gbk, which the file
    # declares, reads the last byte of \u4e2d with the backslash as one character, so the quote
    # ends the string and `evil()` is code. Held as the text Python reads, it is code in every
    # prompt, check and diff; and a change written back in gbk is read back as written.
    hidden = b'# coding: gbk\ns = "' + "\u4e2d".encode("utf-8") + b'\\"; evil(); t = "#"\n'
    assert "evil" not in str([c.value for c in ast.walk(ast.parse(hidden.decode("utf-8"))) if isinstance(c, ast.Call)])
    (tmp_path / "m.py").write_bytes(hidden)
    text = read_project(tmp_path).files["m.py"]
    assert text == hidden.decode("gbk")
    calls = [node.func.id for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)]
    assert calls == ["evil"]
    shown = '# coding: gbk\ns = "\u4e2d\\"; x = 1\n'  # a change as the model writes it: one string
    assert python_text("m.py", file_bytes("m.py", shown)) == shown


def test_a_module_whose_bytes_do_not_come_back_is_kept_as_bytes_and_a_test_of_it_read_only(tmp_path: Path) -> None:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "pricing.py").write_text(SOURCE)
    (tmp_path / "shop" / "hidden.py").write_bytes(UTF7_HIDDEN)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_hidden.py").write_bytes(UTF7_HIDDEN.replace(b"def f", b"def test_f"))
    snapshot = read_project(tmp_path)
    assert "shop/hidden.py" not in snapshot.files and snapshot.data["shop/hidden.py"] == UTF7_HIDDEN
    with pytest.raises(EditRejected):
        apply_reply(snapshot.files, reply("def f():\n    return 2\n", "shop/hidden.py"))
    job = project_job(snapshot.files, parse_test_command("pytest -q"), 10, data=snapshot.data)
    assert job.files["tests/test_hidden.py"] == UTF7_HIDDEN.replace(b"def f", b"def test_f")
    assert "tests/test_hidden.py" in job.read_only


@pytest.mark.parametrize("hidden", ["\x1b[2K\x1b[1A", "\rx", "\x08" * 20, "\u202e", "\u2066", "\x7f", "\x9b", "\x0b"])
def test_a_change_that_adds_control_characters_is_refused(hidden: str) -> None:
    with pytest.raises(EditRejected, match="adds control characters|not valid Python"):  # a lone \r ends a line
        apply_reply({"shop/pricing.py": SOURCE}, reply(FIXED_BODY.format(comment=f"  # ok{hidden}")))
    with pytest.raises(EditRejected, match="adds control characters|not valid Python"):
        apply_reply({"shop/pricing.py": SOURCE}, reply(FIXED_BODY.format(comment="").replace("5", f"'{hidden}'")))
    with pytest.raises(EditRejected, match="adds control characters"):
        refuse_unreadable("shop/pricing.py", SOURCE, SOURCE + f"# {hidden}\x00\n")


def test_newlines_tabs_crlf_and_the_originals_own_characters_are_kept() -> None:
    crlf = SOURCE.replace("\n", "\r\n")
    edit = apply_reply({"shop/pricing.py": crlf}, reply(FIXED_BODY.format(comment="\t# tab")))
    assert "quantity >= 10" in edit.files["shop/pricing.py"]
    with_feed = SOURCE + "\x0c\n\ndef other() -> int:\n    return 1\n"
    edit = apply_reply({"shop/pricing.py": with_feed}, reply(FIXED_BODY.format(comment="")))
    assert "\x0c" in edit.files["shop/pricing.py"]


def test_what_is_printed_shows_control_characters_as_escapes() -> None:
    assert escaped("ok\x1b[2K\r\nline\rx\u202ey\tz\n") == "ok\\x1b[2K\r\nline\\rx\\u202ey\tz\n"
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=200), Context(), reflects=False)
    narrator.on_event({"kind": "change_to_write", "diff": "+x = 1  # \x1b[1A\x1b[2Khidden\n"})  # type: ignore[typeddict-item]
    narrator.on_event({"kind": "reflection_written", "reflection": "\x1b]0;title\x07"})  # type: ignore[typeddict-item]
    shown = out.getvalue()
    assert "\x1b" not in shown and "\\x1b[1A\\x1b[2Khidden" in shown and "\\x07" in shown
