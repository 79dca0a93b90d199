"""A project module that does not parse is a repair target: the run fails with its location, the
screen tries the cheap repairs (no model call), the model corrects the region around the line;
a test file that does not parse stays bad input (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main
from codeheal.errors import EditRejected
from codeheal.forms.project.edits import apply_reply
from codeheal.forms.project.import_slips import import_repairs
from codeheal.forms.project.syntax_slips import (
    cheap_repairs,
    found_slip,
    region_code,
    spliced,
    whole_file_reply,
    within_region,
)
from codeheal.state import CheckFailure, Feedback

OPS = '''"""Small arithmetic."""


def total(items, cap=100):
    """Sum of items, capped."""
    result = 0
    for item in items:
        if item == 0:
            continue
        result += item
    return min(result, cap)


def mean(items):
    values = [float(v) for v in items]
    return sum(values) / len(values)
'''
TESTS = ('from calc.ops import mean, total\n\n\ndef test_total():\n    assert total([1, 2, 0, 3]) == 6\n\n\n'
         'def test_cap():\n    assert total([80, 80]) == 100\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2.0\n')
SLIPS = [  # (the line as it is right, the line with the slip)
    ("    for item in items:\n", "    for item in items\n"),  # expected ':'
    ("    return min(result, cap)\n", "    return min(result, cap\n"),  # '(' was never closed
    ("    return sum(values) / len(values)\n", "    return sum(values)) / len(values)\n"),  # unmatched ')'
    ("    return min(result, cap)\n", "    return min(result cap)\n"),  # forgot a comma
    ("        if item == 0:\n", "        if item = 0:\n"),  # '==' or ':='
    ("        result += item\n", "         result += item\n"),  # unindent does not match
    ("            continue\n", "        continue\n"),  # expected an indented block
    ("    values = [float(v) for v in items]\n", "    values = [float(v) for v in items)\n"),  # does not match
    ("    return sum(values) / len(values)\n", "    retrun sum(values) / len(values)\n"),  # a misspelt keyword
]


@pytest.mark.parametrize(("right", "slip"), SLIPS)
def test_the_screen_has_the_right_repair_among_its_first(right: str, slip: str) -> None:
    broken = OPS.replace(right, slip, 1)
    assert broken != OPS
    repairs = cheap_repairs(broken)
    assert OPS in repairs[:4]


def test_a_module_that_parses_has_no_cheap_repair() -> None:
    assert cheap_repairs(OPS) == []


def _collect_error(path: str) -> Feedback:
    failure = CheckFailure(test="tests/test_ops.py", exception="SyntaxError", message="expected ':'", line=1,
                           frames=[{"file": "tests/test_ops.py", "line": 1, "function": "<module>", "source": ""}],
                           expected=None, actual=None)
    error = f'the tests could not be loaded: CollectError: ...\nE     File "{path}", line 7\nE   SyntaxError: expected \':\''
    return Feedback(passed=False, total=0, passed_count=0, failures=[failure], error=error, stdout="", stderr="",
                    output_truncated=False, timed_out=False, seconds=0.1, isolation="bwrap")


def test_the_slip_is_placed_by_the_hosts_parser_in_a_project_module_only() -> None:
    broken = OPS.replace(*SLIPS[0])
    files = {"calc/ops.py": broken, "tests/test_ops.py": TESTS}
    assert found_slip(_collect_error("/home/me/proj/calc/ops.py"), files) == {
        "file": "calc/ops.py", "line": 7, "exception": "SyntaxError", "message": "expected ':'"}
    assert found_slip(_collect_error("/home/me/proj/calc/ops.py"), {**files, "calc/ops.py": OPS}) is None
    broken_test = {"calc/ops.py": OPS, "tests/test_ops.py": "def test_x()\n    pass\n"}
    assert found_slip(_collect_error("/home/me/proj/tests/test_ops.py"), broken_test) is None


def test_the_models_region_is_spliced_back_and_only_the_region_may_change() -> None:
    broken = OPS.replace(*SLIPS[0])
    region = "\n".join(OPS.splitlines()[0:13])  # lines 1-13: the region around line 7
    assert spliced(broken, 7, region + "\n") == OPS
    assert spliced(broken, 7, SLIPS[0][0]) == OPS  # one line replaces the parser's line
    assert spliced(broken, 7, region.replace("\n\n\n", "\n\n") + "\n") == OPS  # a blank line the model dropped
    unindented = OPS.replace(*SLIPS[6])  # expected an indented block: the model's region re-indents a line
    assert spliced(unindented, 9, "\n".join(OPS.splitlines()[2:15]) + "\n") == OPS
    assert region_code("```python\n   7 |     for item in items:\n```") == "    for item in items:\n"
    assert within_region(broken, OPS)
    assert not within_region(broken, OPS.replace("return sum(values) / len(values)", "return 0.0"))
    files = {"calc/__init__.py": "", "calc/ops.py": broken, "tests/test_ops.py": TESTS}
    edit = apply_reply(files, whole_file_reply("calc/ops.py", OPS))
    assert edit.files == {"calc/ops.py": OPS}
    with pytest.raises(EditRejected, match="away from where it does not parse"):
        apply_reply(files, whole_file_reply("calc/ops.py", OPS.replace("len(values)", "max(len(values), 1)")))


def _project(tmp_path: Path, ops: str, tests: str = TESTS) -> Path:
    project = tmp_path / "proj"
    for path, text in {"calc/__init__.py": "", "calc/ops.py": ops, "tests/test_ops.py": tests}.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    return project


def _fix(tmp_path: Path, project: Path, server: ScriptedServer, *extra: str) -> int:
    return main(["fix", str(project), "--test", "python -m pytest -q", "--model", "scripted", "--base-url",
                 server.url, "--checkpointer", str(tmp_path / "c.sqlite"), *extra])


def test_fix_heals_a_missing_colon_by_the_screen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, OPS.replace(*SLIPS[0]))
    with ScriptedServer(lambda body: "no call expected") as server:
        code = _fix(tmp_path, project, server)
        assert server.requests == []
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-    for item in items\n+    for item in items:\n" in out
    assert "calc/ops.py line 7 does not parse (SyntaxError: expected ':'), so the tests could not be loaded" in " ".join(
        err.split())
    # the screen says what it tries: repairs of the slip, not mutations of suspicious lines
    assert "screen: " in err and "one-edit repairs of the SyntaxError in calc/ops.py line 7 to test (no model call, within" in (
        " ".join(err.split()))
    assert "one-line mutations" not in err


def test_fix_heals_a_slip_the_screen_cannot_with_the_models_region(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path, OPS.replace("return min(result, cap)", "return min(result cap"))  # two tokens off
    prompts: list[str] = []

    def script(body: dict) -> str:
        if not is_fix_actor(body["messages"]):
            return "line 11 lacks a comma and a closing parenthesis."
        prompts.append(body["messages"][-1]["content"])
        return "```python\n" + "\n".join(OPS.splitlines()[4:17]) + "\n```"  # lines 5-17

    with ScriptedServer(script) as server:
        code = _fix(tmp_path, project, server)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-    return min(result cap\n+    return min(result, cap)\n" in out
    assert "calc/ops.py does not parse.\nSyntaxError at line 11: '(' was never closed" in prompts[0]
    assert "  11 |     return min(result cap" in prompts[0]


def test_a_test_file_that_does_not_parse_stays_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, OPS, TESTS.replace("def test_cap():", "def test_cap()"))
    with ScriptedServer(lambda body: "no call expected") as server:
        code = _fix(tmp_path, project, server)
    assert code == 2
    assert "nothing for the model to repair" in capsys.readouterr().err


def test_a_misspelt_imported_name_or_module_is_respelt_by_the_screen() -> None:
    util = "def clamp(value, low, high):\n    return max(low, min(value, high))\n\n\nLIMIT = 3\n"
    files = {"calc/__init__.py": "", "calc/util.py": util, "calc/ops.py": "from calc.util import clmap\n"}
    failure = CheckFailure(test="tests/test_ops.py", exception="ImportError",
                           message="cannot import name 'clmap' from 'calc.util' (/p/calc/util.py)", line=1,
                           frames=[], expected=None, actual=None)
    imports = [("calc/ops.py", 1, "from calc.util import clmap")]
    assert import_repairs([failure], imports, files) == ["```python\n# calc/ops.py\nfrom calc.util import clamp\n```\n"]
    module = CheckFailure(**{**failure, "exception": "ModuleNotFoundError", "message": "No module named 'calc.utl'"})
    assert import_repairs([module], [("calc/ops.py", 1, "from calc.utl import clamp")], files)[0] == (
        "```python\n# calc/ops.py\nfrom calc.util import clamp\n```\n")
    assert import_repairs([CheckFailure(**{**failure, "message": "boom"})], imports, files) == []

