"""The language server's pure parts: trust, where a failure is shown, the progress in words, and
the smallest edits."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from codeheal.lsp.diagnostics import Place, Placed, diagnostics, place
from codeheal.lsp.edits import text_edits
from codeheal.lsp.options import DEFAULT_TEST_COMMAND, options_of
from codeheal.lsp.progress import Narration
from codeheal.lsp.stubs import stub_at


def test_only_a_listed_folder_and_what_lies_under_it_is_trusted(tmp_path: Path) -> None:
    options = options_of({"codeheal": {"trustedFolders": [str(tmp_path / "a")], "testCommand": "make test"}})
    assert options.trusts(tmp_path / "a") and options.trusts(tmp_path / "a" / "b")
    assert not options.trusts(tmp_path) and not options.trusts(tmp_path / "ab")
    assert options.test_command == "make test"
    assert not options_of(None).trusts(tmp_path) and options_of({"trustedFolders": "/"}).trusted_folders == ()
    assert options_of({"testCommand": " "}).test_command == DEFAULT_TEST_COMMAND


def test_a_failure_is_shown_at_its_innermost_frame_in_the_projects_code_and_at_its_test(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text("x\n" * 20)
    (tmp_path / "test_m.py").write_text("x\n" * 20)
    frames = [{"file": "test_m.py", "line": 5, "function": "test_f", "source": ""},
              {"file": "pkg/m.py", "line": 12, "function": "f", "source": ""},
              {"file": "/usr/lib/python3.11/json/decoder.py", "line": 3, "function": "decode", "source": ""}]
    failure = {"test": "test_m.py::test_f", "exception": "ValueError", "message": "bad", "line": None,
               "frames": frames, "expected": None, "actual": None}
    code, test = Place((tmp_path / "pkg" / "m.py").resolve(), 11), Place((tmp_path / "test_m.py").resolve(), 4)
    assert place(tmp_path, failure) == Placed(code, test)
    assert place(tmp_path, {**failure, "frames": frames[:1]}) == Placed(None, test)  # an assert on a value
    assert place(tmp_path, {**failure, "frames": []}) == Placed(None, Place(test.path, 0))

    found = diagnostics(tmp_path, [failure], {})
    [at_code] = found[code.path]
    assert at_code.range.start.line == 11 and at_code.message == "test_m.py::test_f failed: ValueError: bad"
    [to_test] = at_code.related_information
    assert to_test.location.uri == test.path.as_uri() and to_test.location.range.start.line == 4
    [at_test] = found[test.path]
    assert at_test.related_information[0].message == "where it fails: pkg/m.py line 12"


def test_a_module_that_does_not_parse_is_one_diagnostic_at_its_line_naming_each_test_file(tmp_path: Path) -> None:
    """As the project form reports a syntax slip: each test file that imports the module fails
    to load, its traceback ending at the line where the parser stopped."""
    (tmp_path / "calc.py").write_text("def add(a, b)\n    return a + b\n")
    for name in ("test_a.py", "test_b.py"):
        (tmp_path / name).write_text("from calc import add\n")
    failures = [{"test": name, "exception": "SyntaxError", "message": "expected ':'", "line": None,
                 "frames": [{"file": name, "line": 1, "function": "<module>", "source": ""},
                            {"file": "calc.py", "line": 1, "function": "<module>", "source": "def add(a, b)"}],
                 "expected": None, "actual": None} for name in ("test_a.py", "test_b.py")]
    found = diagnostics(tmp_path, failures, {})
    [slip] = found[(tmp_path / "calc.py").resolve()]
    assert slip.range.start.line == 0 and slip.message == "test_a.py, test_b.py: SyntaxError: expected ':'"
    assert [r.message for r in slip.related_information] == ["the test test_a.py", "the test test_b.py"]
    [alone] = found[(tmp_path / "test_a.py").resolve()]
    assert alone.message == "test_a.py could not be loaded: SyntaxError: expected ':'"


def test_the_progress_says_the_attempt_as_the_cli_numbers_it_the_phase_the_tokens_and_the_time_left() -> None:
    now = [0.0]
    narration = Narration(max_attempts=3, deadline_s=600, clock=lambda: now[0])
    assert narration.message() == "attempt 1 of 3: tests: running the tests of the project as it is · 600 s left"
    now[0] = 10.0
    said = narration.on_event({"kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 1, "total": 3})
    assert said == "attempt 1 of 3: tests: 1 of 3 tests passed · 590 s left"
    assert narration.on_event({"kind": "attempt_started", "attempt": 2, "max_attempts": 4, "seconds_left": 580.4}) == (
        "attempt 2 of 4: screen: writing one-line mutations · 580 s left")  # one more attempt: the screen's
    assert narration.on_event({"kind": "candidates_written", "attempt": 2, "seconds": 0.0, "prompt_tokens": 0,
                               "completion_tokens": 0, "mutants": 12}).startswith(
        "attempt 2 of 4: screen: testing 12 one-line mutations (no model call)")
    narration.on_event({"kind": "attempt_started", "attempt": 3, "max_attempts": 4, "seconds_left": 500})
    now[0] = 40.0
    assert narration.on_event({"kind": "writing", "attempt": 3, "completion_tokens": 52, "seconds": 30.2}) == (
        "attempt 3 of 4: model: writing code, 52 tokens in 30 s · 470 s left")
    assert narration.on_event({"kind": "candidates_written", "attempt": 3, "seconds": 41.0, "prompt_tokens": 900,
                               "completion_tokens": 60}) == (
        "attempt 3 of 4: tests: running the tests (code written: 60 tokens in 41 s) · 470 s left")
    assert narration.on_event({"kind": "reflection_written", "attempt": 3, "reflection": "..."}) is None


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
