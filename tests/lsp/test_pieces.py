"""The language server's pure parts: trust, where a failure is shown, and the smallest edits."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from codeheal.lsp.diagnostics import place
from codeheal.lsp.edits import text_edits
from codeheal.lsp.options import DEFAULT_TEST_COMMAND, options_of
from codeheal.lsp.stubs import stub_at


def test_only_a_listed_folder_and_what_lies_under_it_is_trusted(tmp_path: Path) -> None:
    options = options_of({"codeheal": {"trustedFolders": [str(tmp_path / "a")], "testCommand": "make test"}})
    assert options.trusts(tmp_path / "a") and options.trusts(tmp_path / "a" / "b")
    assert not options.trusts(tmp_path) and not options.trusts(tmp_path / "ab")
    assert options.test_command == "make test"
    assert not options_of(None).trusts(tmp_path) and options_of({"trustedFolders": "/"}).trusted_folders == ()
    assert options_of({"testCommand": " "}).test_command == DEFAULT_TEST_COMMAND


def test_a_failure_is_shown_at_its_innermost_frame_in_the_project(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x\n" * 20)
    (tmp_path / "test_m.py").write_text("x\n" * 20)
    frames = [{"file": "test_m.py", "line": 5, "function": "test_f", "source": ""},
              {"file": "pkg/m.py", "line": 12, "function": "f", "source": ""},
              {"file": "/usr/lib/python3.11/json/decoder.py", "line": 3, "function": "decode", "source": ""}]
    failure = {"test": "test_m.py::test_f", "exception": "ValueError", "message": "bad", "line": None,
               "frames": frames, "expected": None, "actual": None}
    assert place(tmp_path, failure) == ((tmp_path / "pkg" / "m.py").resolve(), 11)
    assert place(tmp_path, {**failure, "frames": []}) == ((tmp_path / "test_m.py").resolve(), 0)


def test_the_edits_replace_only_the_lines_that_differ() -> None:
    old = "a\nb\nc\nd\n"
    [edit] = text_edits(old, "a\nB\nc\nd\n")
    assert edit.range == types.Range(types.Position(1, 0), types.Position(2, 0)) and edit.new_text == "B\n"
    [tail] = text_edits("a\nb", "a\nb\nc\n")
    assert tail.range == types.Range(types.Position(1, 0), types.Position(1, 1)) and tail.new_text == "b\nc\n"
    assert text_edits(old, old) == []


def test_the_vscode_extensions_settings_are_the_servers() -> None:
    """editors/vscode passes codeheal.trustedFolders and codeheal.testCommand as the server's
    options of those names; codeheal.path is the extension's own (the executable)."""
    import json

    manifest = json.loads((Path(__file__).parents[2] / "editors" / "vscode" / "package.json").read_text(encoding="utf-8"))
    settings = {name.removeprefix("codeheal.") for name in manifest["contributes"]["configuration"]["properties"]}
    assert settings - {"path"} == {"trustedFolders", "testCommand"}
    parsed = options_of({"codeheal": {"trustedFolders": ["/x"], "testCommand": "make test"}})
    assert parsed.trusted_folders == (Path("/x").resolve(),) and parsed.test_command == "make test"


def test_a_stub_is_a_function_with_a_docstring_and_no_body_yet() -> None:
    source = (
        "class Cart:\n"
        "    def total(self):\n"
        '        """The sum."""\n'
        "        raise NotImplementedError\n"
        "\n"
        "def done():\n"
        '    """Done."""\n'
        "    return 1\n"
        "\n"
        "def bare():\n"
        "    ...\n"
    )
    assert [stub_at(source, line) for line in range(11)] == [
        None, "Cart.total", "Cart.total", "Cart.total", None, None, None, None, None, None, None]
    assert stub_at("def (", 0) is None
