"""A misspelled imported name (or module) in a project module is healable: the import line the
failing traceback points at is replaced by the reply's corrected import; the tests stay off limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main
from codeheal.errors import EditRejected
from codeheal.forms.project.edits import Target, apply_reply, import_at
from codeheal.forms.project.prompts import failing_imports
from codeheal.forms.project.run import refusal
from codeheal.state import ChangedDefinition, CheckFailure

MOD = '"""Greetings."""\n\nNAME = "world"\n\n\ndef greet(who: str) -> str:\n    return f"hello {who}"\n'
USE = ('"""Uses the name."""\n# the greeting\nfrom pkg.mod import NAEM, greet\nimport jsn\n\n\n'
       'def welcome() -> str:\n    return greet(NAME)\n')
TEST = "from pkg.use import welcome\n\n\ndef test_welcome():\n    assert welcome() == \"hello world\"\n"
FILES = {"pkg/__init__.py": "", "pkg/mod.py": MOD, "pkg/use.py": USE, "tests/test_use.py": TEST}
AT_IMPORT = [Target("pkg/use.py", "<module>", 3), Target("tests/test_use.py", "<module>", 1)]
FIXED_FROM = "```python\n# pkg/use.py\nfrom pkg.mod import NAME, greet\n```"


def test_the_import_the_traceback_points_at_is_replaced_and_nothing_else() -> None:
    edit = apply_reply(FILES, FIXED_FROM, hints=AT_IMPORT)
    assert edit.files == {"pkg/use.py": USE.replace("NAEM", "NAME")}
    assert edit.changed == [ChangedDefinition(file="pkg/use.py", name="from pkg.mod import NAME, greet", kind="import")]


def test_a_block_without_a_path_and_a_plain_import_are_replaced_too() -> None:
    edit = apply_reply(FILES, "```python\nimport json\n```", hints=[Target("pkg/use.py", "<module>", 4)])
    assert edit.files["pkg/use.py"] == USE.replace("import jsn\n", "import json\n")


def test_a_misspelled_module_is_replaced_by_an_import_of_the_same_names() -> None:
    files = {**FILES, "pkg/use.py": USE.replace("from pkg.mod import NAEM", "from pkg.mdo import NAME")}
    edit = apply_reply(files, "```python\nfrom pkg.mod import NAME, greet\n```", hints=AT_IMPORT)
    assert edit.files["pkg/use.py"] == files["pkg/use.py"].replace("pkg.mdo", "pkg.mod")


def test_the_import_is_replaced_beside_a_corrected_function() -> None:
    reply = ("```python\n# pkg/use.py\nfrom pkg.mod import NAME, greet\n\n\n"
             "def welcome() -> str:\n    return greet(NAME).strip()\n```")
    edit = apply_reply(FILES, reply, hints=AT_IMPORT)
    assert "from pkg.mod import NAME, greet\n" in edit.files["pkg/use.py"]
    assert "return greet(NAME).strip()" in edit.files["pkg/use.py"]
    assert {(c["name"], c["kind"]) for c in edit.changed} == {("welcome", "function"),
                                                              ("from pkg.mod import NAME, greet", "import")}


@pytest.mark.parametrize(("hints", "reply"), [
    ([], FIXED_FROM),  # the traceback points at no import
    ([Target("pkg/use.py", "welcome", 8)], FIXED_FROM),  # ... but into a function
    (AT_IMPORT, "```python\n# pkg/use.py\nfrom pkg.other import NAME\n```"),  # an import of another module
])
def test_an_import_no_failing_line_of_its_kind_takes_is_refused_as_before(hints: list[Target], reply: str) -> None:
    with pytest.raises(EditRejected, match="defines no function or method"):
        apply_reply(FILES, reply, hints=hints)


def test_a_replacing_import_may_not_rebind_a_name_the_module_defines() -> None:
    with pytest.raises(EditRejected, match="rebinds welcome, which pkg/use.py already defines"):
        apply_reply(FILES, "```python\n# pkg/use.py\nfrom pkg.mod import welcome, greet\n```", hints=AT_IMPORT)


def test_an_import_replaced_in_a_test_file_is_refused() -> None:
    edit = apply_reply(FILES, "```python\n# tests/test_use.py\nfrom pkg.use import welcome as w\n```", hints=AT_IMPORT)
    assert refusal(None, edit.changed) == (
        "the reply changes tests/test_use.py, part of the tests: fix the code under test, never the tests")


def test_the_repair_prompt_names_the_failing_import() -> None:
    assert import_at(USE, 3) == "from pkg.mod import NAEM, greet" and import_at(USE, 2) is None
    assert import_at(USE, 8) is None  # a line of a function
    frames = [{"file": "tests/test_use.py", "line": 1, "function": "<module>", "source": ""},
              {"file": "pkg/use.py", "line": 3, "function": "<module>", "source": ""}]
    failure = CheckFailure(test="tests/test_use.py", exception="ImportError", message="cannot import name 'NAEM'",
                           line=3, frames=frames, expected=None, actual=None)
    assert failing_imports([failure], FILES) == [("pkg/use.py", 3, "from pkg.mod import NAEM, greet")]


def test_fix_heals_a_misspelled_imported_name_at_collection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "proj"
    for path, text in {**FILES, "pkg/use.py": USE.replace("import jsn\n", "")}.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    prompts: list[str] = []

    def script(body: dict) -> str:
        if not is_fix_actor(body["messages"]):
            return "pkg/use.py imports NAEM, which pkg.mod does not define: it means NAME."
        prompts.append(body["messages"][-1]["content"])
        return FIXED_FROM

    with ScriptedServer(script) as server:
        code = main(["fix", str(project), "--test", "python -m pytest -q", "--model", "scripted", "--base-url",
                     server.url, "--mutants", "0", "--checkpointer", str(tmp_path / "c.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-from pkg.mod import NAEM, greet\n+from pkg.mod import NAME, greet\n" in out
    assert out.count("\n-") == 1 and out.count("\n+") == 2  # the header's +++ and the one line
    assert "The failure is raised by the import at pkg/use.py line 3 (`from pkg.mod import NAEM, greet`)" in prompts[0]
