"""`codeheal fix --check CMD`: a static checker as the specification. Its output (mypy's,
pyright's and ruff's, real captures in fixtures/checkers) read on the host into diagnostics;
a change judged against the project as it is (fixed ones count, an added or silenced one is
refused); the screen's cheap type repairs; end to end with mypy in the project's .venv, by the
screen, by a scripted model, and beside --test (both must hold)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from project_venv import venv_with_pytest
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main
from codeheal.forms.project.check_repairs import type_repairs
from codeheal.forms.project.check_surface import silenced
from codeheal.forms.project.checker import (
    Diagnostic,
    added,
    check_feedback,
    read_diagnostics,
    types_used,
)
from codeheal.forms.project.prompts import project_reply_start
from codeheal.sandboxes.base import RunResult
from codeheal.state import State

CAPTURED = Path(__file__).parent / "fixtures" / "checkers"
ROOT = "/tmp/i76"
"""Where the captures ran: pyright and ruff print absolute paths under it."""
PRICES = (CAPTURED / "prices.py").read_text()
FILES = {"shop/__init__.py": "", "shop/prices.py": PRICES}
MYPY_ERRORS = [(6, "return-value", "unit_price"), (10, "union-attr", "label"), (14, "assignment", "parse")]


def _read(name: str) -> list[tuple[int, str, str]] | None:
    found = read_diagnostics((CAPTURED / name).read_text(), FILES, ROOT)
    return None if found is None else [(d["line"], d["code"], d["function"]) for d in found]


@pytest.mark.parametrize("name", ["mypy.jsonl", "mypy.txt", "mypy_columns.txt"])
def test_mypys_json_and_text_give_each_error_with_its_line_code_and_function(name: str) -> None:
    assert _read(name) == MYPY_ERRORS


def test_pyrights_json_gives_lines_one_based_and_its_rules() -> None:
    assert _read("pyright.json") == [(6, "reportReturnType", "unit_price"),
                                     (10, "reportOptionalMemberAccess", "label"), (14, "reportAssignmentType", "parse")]
    text = _read("pyright.txt")  # its text puts a rule on the message's last line: read where it is on the first
    assert text is not None and [line for line, _, _ in text] == [6, 10, 14]


@pytest.mark.parametrize("name", ["ruff.json", "ruff.txt"])
def test_ruffs_json_and_concise_output(name: str) -> None:
    assert _read(name) == [(9, "UP045", "label")]


def test_output_without_a_diagnostic_is_not_read_and_notes_warnings_and_other_files_do_not_count() -> None:
    assert read_diagnostics((CAPTURED / "mypy_no_file.txt").read_text(), FILES, ROOT) is None
    text = ("shop/prices.py:6: note: Revealed type is \"builtins.str\"\n"
            "/usr/lib/python3/typing.py:3: error: Name \"x\" is not defined  [name-defined]\n"
            f"{ROOT}/shop/prices.py:10:5 - warning: Import \"y\" could not be resolved\n")
    assert read_diagnostics(text, FILES, ROOT) == []
    file_level = '{"file": "shop/prices.py", "line": -1, "message": "m", "code": "misc", "severity": "error"}'
    assert read_diagnostics(file_level, FILES, ROOT) == [Diagnostic(file="shop/prices.py", line=1, code="misc",
                                                                    message="m", function="<module>")]


def _diagnostic(line: int, code: str = "return-value", message: str = "m", function: str = "unit_price") -> Diagnostic:
    return Diagnostic(file="shop/prices.py", line=line, code=code, message=message, function=function)


def test_a_diagnostic_is_new_by_file_code_message_and_function_never_by_its_line() -> None:
    before = [_diagnostic(6), _diagnostic(10, "union-attr", function="label")]
    assert added(before, [_diagnostic(7)]) == []  # the same error, a line lower
    assert added(before, [_diagnostic(7), _diagnostic(9)]) == [_diagnostic(9)]  # the same error twice
    assert added(before, [_diagnostic(6, function="parse")]) == [_diagnostic(6, function="parse")]


def _result(stdout: str, exit_code: int | None = 1, timed_out: bool = False) -> RunResult:
    return RunResult(exit_code=exit_code, stdout=stdout, stderr="", timed_out=timed_out, output_truncated=False,
                     seconds=1.0, isolation="bwrap")


def test_a_changes_check_counts_what_it_fixed_and_refuses_what_it_adds() -> None:
    as_is = read_diagnostics((CAPTURED / "mypy.txt").read_text(), FILES, ROOT)
    assert as_is is not None
    fixed_one = _result("\n".join((CAPTURED / "mypy.txt").read_text().splitlines()[1:3]))
    feedback, _ = check_feedback(fixed_one, FILES, ROOT, "mypy", as_is)
    assert (feedback["passed"], feedback["passed_count"], feedback["total"], feedback["error"]) == (False, 1, 3, None)
    assert feedback["failures"][0]["frames"][0] == {"file": "shop/prices.py", "line": 10, "function": "label",
                                                   "source": "return name.upper()"}
    new = _result('shop/prices.py:15: error: Incompatible return value type (got "str", expected "int")  [return-value]')
    feedback, _ = check_feedback(new, FILES, ROOT, "mypy", as_is)
    assert not feedback["passed"]
    assert feedback["error"] is not None and feedback["error"].startswith("the change adds 1 mypy diagnostic(s)")
    assert (feedback["passed_count"], feedback["total"]) == (3, 4)  # all three fixed, one added
    clean, _ = check_feedback(_result("Success: no issues found in 2 source files", 0), FILES, ROOT, "mypy", as_is)
    assert (clean["passed"], clean["passed_count"], clean["total"]) == (True, 3, 3)


def test_a_checker_that_fails_without_a_diagnostic_says_so_with_its_output() -> None:
    feedback, diagnostics = check_feedback(_result((CAPTURED / "mypy_no_file.txt").read_text(), 2), FILES, ROOT,
                                           "mypy", None)
    assert diagnostics is None and not feedback["passed"]
    assert feedback["error"] is not None and feedback["error"].startswith(
        "mypy exited with code 2 without a diagnostic codeheal can read:\n"
        "shop/nonexist.py: error: Cannot read file: No such file or directory\n")


def test_a_change_that_silences_the_checker_is_refused() -> None:
    silencing = PRICES.replace("return str(total / count)", "return str(total / count)  # type: ignore")
    assert silenced(FILES, {"shop/prices.py": silencing}) == (
        "shop/prices.py: it adds the comment `# type: ignore`; fix what the checker reports, never hide code from it")
    assert silenced({"a.py": "x = 1  # noqa\n"}, {"a.py": "x = 2  # noqa\n"}) is None  # there before


def test_the_screens_type_repairs_clear_every_error_first_then_each_alone() -> None:
    as_is = read_diagnostics((CAPTURED / "mypy.txt").read_text(), FILES, ROOT)
    assert as_is is not None
    replies = type_repairs(as_is, FILES, 20)
    assert "    return total / count\n" in replies[0] and "    assert name is not None\n" in replies[0]
    assert "    value: int = int(text)\n" in replies[0]
    assert "    return total / count\n" in replies[1]  # the conversion unwrapped, then replaced, then the annotation
    assert any("    return float(total / count)\n" in r for r in replies)
    assert any("-> str:\n" in r and "return str(total / count)" in r for r in replies)
    pyright = read_diagnostics((CAPTURED / "pyright.json").read_text(), FILES, ROOT)
    assert pyright is not None and type_repairs(pyright, FILES, 20) == replies  # the same errors, read from pyright


def test_type_repairs_of_an_argument_and_a_missing_return() -> None:
    code = ("def half(n: int) -> float:\n    return n / 2\n\n\ndef show(text: str) -> float:\n    return half(text)\n\n\n"
            "def total(items: list[int]) -> int:\n    result = sum(items)\n")
    files = {"m.py": code}
    argument = Diagnostic(file="m.py", line=6, code="arg-type", function="show",
                          message='Argument 1 to "half" has incompatible type "str"; expected "int"')
    assert "    return half(int(text))\n" in type_repairs([argument], files, 5)[0]
    missing = Diagnostic(file="m.py", line=9, code="return", message="Missing return statement", function="total")
    assert "    result = sum(items)\n    return result\n" in type_repairs([missing], files, 5)[0]


# End to end: mypy in the project's own .venv, as a user has it.

TYPED = '''"""Prices."""


def unit_price(total: float, count: int) -> float:
    """The price of one item."""
    return str(total / count)


def describe(count: int) -> str:
    return "items: " + count
'''


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtualenv holding pytest and mypy (the projects' --python), made once for the module."""
    venv = tmp_path_factory.mktemp("venv") / ".venv"
    venv_with_pytest(venv, "mypy")
    return venv


def _project(tmp_path: Path, venv: Path, prices: str, tests: str | None = None) -> Path:
    project = tmp_path / "proj"
    files = {"shop/__init__.py": "", "shop/prices.py": prices, **({"tests/test_prices.py": tests} if tests else {})}
    for path, text in files.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)
    return project


def _fix(tmp_path: Path, project: Path, server: ScriptedServer, venv: Path, *extra: str, check: str = "python -m mypy shop",
         ) -> int:
    return main(["fix", str(project), "--check", check, "--python", str(venv / "bin" / "python"), "--model", "scripted",
                 "--base-url", server.url, "--checkpointer", str(tmp_path / "c.sqlite"), "--json", *extra])


def test_the_screen_heals_a_str_returned_under_float_with_no_model_call(
    tmp_path: Path, venv: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path, venv, TYPED.split("\n\ndef describe")[0] + "\n")
    with ScriptedServer(lambda body: "no call expected") as server:
        code = _fix(tmp_path, project, server, venv)
        assert server.requests == []
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-    return str(total / count)\n+    return total / count\n" in json.loads(out)["diff"]


def test_a_scripted_model_heals_what_the_screen_does_not_try_shown_the_diagnostic_and_the_function(
    tmp_path: Path, venv: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path, venv, TYPED)
    prompts: list[str] = []

    def script(body: dict) -> str:
        if not is_fix_actor(body["messages"]):
            return "unit_price returns a str and describe adds an int to a str."
        prompts.append(body["messages"][1]["content"])
        return ("```python\n# shop/prices.py\ndef unit_price(total: float, count: int) -> float:\n"
                "    return total / count\n\n\ndef describe(count: int) -> str:\n    return f\"items: {count}\"\n```")

    with ScriptedServer(script) as server:
        code = _fix(tmp_path, project, server, venv, "--mutants", "0")
    out, err = capsys.readouterr()
    assert code == 0, err
    assert '+    return f"items: {count}"' in json.loads(out)["diff"]
    assert "Checker (must report no error): python -m mypy shop" in prompts[0]
    assert 'Incompatible return value type (got "str", expected "float")' in prompts[0]
    assert "def describe(count: int) -> str:" in prompts[0] and "never silence it" in prompts[0]


def test_a_model_that_silences_mypy_is_refused_and_told_why_then_heals(
    tmp_path: Path, venv: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path, venv, TYPED)
    seen: list[str] = []
    silencing = ("```python\n# shop/prices.py\ndef unit_price(total: float, count: int) -> float:\n"
                 "    return cast(float, str(total / count))\n\n\ndef describe(count: int) -> str:\n"
                 "    return cast(str, \"items: \" + count)\n```")
    honest = ("```python\n# shop/prices.py\ndef unit_price(total: float, count: int) -> float:\n"
              "    return total / count\n\n\ndef describe(count: int) -> str:\n    return f\"items: {count}\"\n```")

    def script(body: dict) -> str:
        if not is_fix_actor(body["messages"]):
            return "Fix the types instead of casting them."
        seen.append(str(body["messages"]))
        return silencing if len(seen) == 1 else honest

    (project / "shop" / "prices.py").write_text("from typing import cast\n\n\n" + TYPED)
    with ScriptedServer(script) as server:
        code = _fix(tmp_path, project, server, venv, "--mutants", "0")
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "it adds `typing.cast`, which hides code or types from the checker" in seen[-1]
    diff = json.loads(out)["diff"]
    assert '+    return f"items: {count}"' in diff and not any(
        line.startswith("+") and "cast(" in line for line in diff.splitlines())


def test_beside_the_tests_a_change_that_satisfies_the_checker_and_breaks_a_test_is_no_heal(
    tmp_path: Path, venv: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    # mypy flags the str returned under `-> int`; the tests want the str: converting the value
    # (the screen's first candidates) satisfies mypy and breaks the test, the annotation is the heal.
    prices = 'def code_of(number: int) -> int:\n    return str(number).zfill(4)\n'
    tests = "from shop.prices import code_of\n\n\ndef test_code():\n    assert code_of(7) == '0007'\n"
    project = _project(tmp_path, venv, prices, tests)
    with ScriptedServer(lambda body: "no call expected") as server:
        code = _fix(tmp_path, project, server, venv, "--test", "python -m pytest -q")
        assert server.requests == []
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-def code_of(number: int) -> int:\n+def code_of(number: int) -> str:\n" in json.loads(out)["diff"]


def test_a_checker_that_cannot_check_the_project_is_bad_input_before_any_model_call(
    tmp_path: Path, venv: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path, venv, TYPED)
    with ScriptedServer(lambda body: "no call expected") as server:
        code = _fix(tmp_path, project, server, venv, check="python -m mypy shop/missing.py")
        assert server.requests == []
    err = capsys.readouterr().err
    assert code == 2
    assert "check command 'python -m mypy shop/missing.py' cannot check the project as it is" in err
    assert "Cannot read file" in err



def test_the_pre_commit_hooks_entry_checks_with_the_checker_its_config_names(
    tmp_path: Path, venv: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    project = _project(tmp_path, venv, TYPED.split("\n\ndef describe")[0] + "\n")
    (project / "pyproject.toml").write_text(
        f'[tool.codeheal.fix]\ncheck = "python -m mypy shop"\npython = "{venv / "bin" / "python"}"\n')
    with ScriptedServer(lambda body: "no call expected") as server:
        code = main(["fix", str(project), "--exit-code", "--model", "scripted", "--base-url", server.url,
                     "--checkpointer", str(tmp_path / "c.sqlite")])  # the hook's entry: `codeheal fix . --exit-code`
    out, err = capsys.readouterr()
    assert code == 4, err  # a change proposed, with which mypy agrees
    assert "+    return total / count\n" in out


def test_the_model_is_shown_the_project_classes_an_error_involves_outlined() -> None:
    code = ("from dataclasses import dataclass\n\n\n@dataclass\nclass Item:\n    name: str\n    price: float\n\n"
            "    def label(self) -> str:\n        return self.name\n\n\nclass Cart:\n    items: list[Item]\n\n\n"
            "def total(cart: Cart) -> float:\n    return cart.items\n")
    diagnostic = Diagnostic(file="shop.py", line=18, code="return-value", function="total",
                            message='Incompatible return value type (got "list[Item]", expected "float")')
    assert types_used([diagnostic], {"shop.py": code, "tests/test_shop.py": "class Cart:\n    pass\n"}) == (
        "# shop.py\nclass Item:\n    name: str\n    price: float\n    def label(self) -> str:\n        ...\n\n"
        "# shop.py\nclass Cart:\n    items: list[Item]")


def test_under_a_checker_a_prefilled_reply_leaves_the_def_line_to_the_model() -> None:
    scope = {"functions": None, "hints": [], "primary": {"path": "shop/prices.py", "header": "def f(x: int) -> str:\n"}}
    tests_only = State(form_run={"scope": scope})  # type: ignore[typeddict-item]
    checked = State(form_run={"scope": scope, "check": {"text": "mypy shop", "argv": ["mypy", "shop"]}})  # type: ignore[typeddict-item]
    assert project_reply_start(tests_only)[0] == "```python\n# shop/prices.py\ndef f(x: int) -> str:\n"
    start, stop = project_reply_start(checked)
    assert start == "```python\n# shop/prices.py\n" and "\ndef " in stop  # the annotation may be what is wrong


def test_the_screen_never_changes_an_annotation_to_any_or_object() -> None:
    files = {"m.py": "def f(x: int) -> int:\n    return g(x)\n"}
    for got in ("Any", "object", "list[Any]"):
        diagnostic = Diagnostic(file="m.py", line=2, code="return-value", function="f",
                                message=f'Incompatible return value type (got "{got}", expected "int")')
        assert [r for r in type_repairs([diagnostic], files, 10) if "->" in r.split("\n", 3)[2]
                and "-> int" not in r] == []
    changed = Diagnostic(file="m.py", line=2, code="return-value", function="f",
                         message='Incompatible return value type (got "str", expected "int")')
    assert any("def f(x: int) -> str:" in r for r in type_repairs([changed], files, 10))
