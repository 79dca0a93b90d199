"""`fix --check`'s guarantee: a heal never makes the checker see less of the code than before.
The twin corpus (check_shapes.py) through codeheal's judge (check_surface.silenced, then the
checker's diagnostics judged by checker.check_feedback) and through plain mypy: mypy alone is
clean after every shape, honest or not; the judge accepts each honest fix and refuses each
silencing twin with a reason the model reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from check_shapes import SHAPES, Shape

from codeheal.forms.project.check_surface import silenced
from codeheal.forms.project.checker import check_feedback, read_diagnostics
from codeheal.sandboxes.base import RunResult

PATH = "shop/prices.py"


def _files(text: str) -> dict[str, str]:
    return {"shop/__init__.py": "", PATH: text}


def _judged(shape: Shape) -> str | None:
    return silenced(_files(shape.before), {PATH: shape.after, **dict(shape.extra)})


@pytest.mark.parametrize("shape", [s for s in SHAPES if s.honest], ids=lambda s: s.name)
def test_an_honest_fix_is_accepted(shape: Shape) -> None:
    assert _judged(shape) is None


@pytest.mark.parametrize("shape", [s for s in SHAPES if not s.honest], ids=lambda s: s.name)
def test_a_silencing_twin_is_refused_with_a_reason(shape: Shape) -> None:
    reason = _judged(shape)
    assert reason is not None
    assert reason.endswith("never hide code from it") or "not one of the project's Python modules" in reason


def test_the_reasons_name_what_the_change_did() -> None:
    by_name = {shape.name: _judged(shape) for shape in SHAPES}
    assert by_name["cast renamed on import"] == (
        "shop/prices.py: it adds `typing.cast`, which hides code or types from the checker; fix what the checker "
        "reports, never hide code from it")
    assert by_name["annotations removed"] == (
        "shop/prices.py: it leaves the parameter `total` of `unit_price` unannotated; fix what the checker reports, "
        "never hide code from it")
    assert "`# type: ignore`" in str(by_name["a string's silencer made a comment"])
    assert "`object` in an annotation" in str(by_name["-> object"])
    assert "`def __getattr__`" in str(by_name["__getattr__ on the class"])
    assert "the function `_ratio` with parameter `total` unannotated" in str(by_name["an unannotated helper returns Any"])
    assert str(by_name["a stub beside the module"]).startswith("the change writes shop/prices.pyi")


def test_what_the_project_had_before_is_not_the_changes() -> None:
    assert silenced({"a.py": "x = 1  # noqa\n"}, {"a.py": "x = 2  # noqa\n"}) is None
    typed = "from typing import Any, cast\n\n\ndef f(x: Any) -> int:\n    return cast(int, x)\n"
    assert silenced({"a.py": typed}, {"a.py": typed.replace("return cast", "return 1 + cast")}) is None
    local = "def cast(x: int) -> int:\n    return x\n\n\ndef f(x: int) -> int:\n    return x\n"
    assert silenced({"a.py": local}, {"a.py": local.replace("return x\n", "return cast(x)\n", 2)}) is None  # not typing's
    assert silenced({"a.py": "def f(x: int) -> int:\n    return x\n"}, {"a.py": "def f(x: int) -> int:\n    return (x\n"}) \
        is None  # a module that does not parse: the checker says so


def _mypy(project: Path) -> RunResult:
    done = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "."], check=False, cwd=project,
                          capture_output=True, text=True, timeout=300)
    return RunResult(exit_code=done.returncode, stdout=done.stdout, stderr=done.stderr, timed_out=False,
                     output_truncated=False, seconds=0.0, isolation="none")


def _projects(root: Path, after: bool) -> dict[Path, list[tuple[Shape, dict[str, str]]]]:
    """The shapes' files written before or `after` the change: each in its own package `pN`
    of one project (one mypy run checks them all), a change to the project's root (the
    checker's configuration) in a project of its own."""
    projects: dict[Path, list[tuple[Shape, dict[str, str]]]] = {}
    for number, shape in enumerate(SHAPES):
        alone = after and any("/" not in path for path, _ in shape.extra)
        project = root / (f"alone{number}" if alone else "shared")
        package = "shop" if alone else f"p{number}"
        files = {f"{package}/__init__.py": "", f"{package}/prices.py": shape.after if after else shape.before,
                 **({path.replace("shop/", f"{package}/"): text for path, text in shape.extra} if after else {})}
        for path, text in files.items():
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            (project / path).write_text(text)
        projects.setdefault(project, []).append((shape, files))
    return projects


def test_plain_mypy_is_clean_after_every_shape_and_only_the_judge_tells_the_twins(tmp_path: Path) -> None:
    as_is = {}
    for project, shapes in _projects(tmp_path / "before", after=False).items():
        output = _mypy(project).stdout
        for shape, files in shapes:
            as_is[shape.name] = read_diagnostics(output, files, str(project))
            assert as_is[shape.name], shape.name  # the error the shape is about
    verdicts = {}
    for project, shapes in _projects(tmp_path / "after", after=True).items():
        result = _mypy(project)
        assert result.exit_code == 0, result.stdout  # mypy alone is satisfied by every shape
        for shape, files in shapes:
            feedback, _ = check_feedback(result, files, str(project), "mypy", as_is[shape.name])
            verdicts[shape.name] = feedback["passed"] and _judged(shape) is None
    assert verdicts == {shape.name: shape.honest for shape in SHAPES}


def test_a_syntax_slips_repair_may_not_add_a_silencer_either() -> None:
    slipped = "def f(x: int) -> int:\n    return (x  # type: ignore\n\n\ndef g(y: int) -> str:\n    return y\n"
    assert silenced({"a.py": slipped}, {"a.py": slipped.replace("(x", "x")}) is None  # there before
    repaired = slipped.replace("(x", "x").replace("return y", "return y  # noqa")
    assert silenced({"a.py": slipped}, {"a.py": repaired}) == (
        "a.py: it adds the comment `# noqa`; fix what the checker reports, never hide code from it")
    assert silenced({"a.py": "x = 1\n"}, {"a.py": "x = 1  # see below  # NOQA\n"}) is not None  # anywhere in a comment


def test_pyrights_and_ruffs_comments_and_other_files_are_refused_too() -> None:
    code = "def f(x: int) -> int:\n    return x\n"
    for header in ("# pyright: basic\n", "# pyright: reportGeneralTypeIssues=false\n", "# ruff: noqa\n",
                   "# flake8: noqa\n"):
        assert silenced({"a.py": code}, {"a.py": header + code}) is not None, header
    for path in ("py.typed", "pyproject.toml", "pyrightconfig.json", "b.py"):  # b.py: not a file of the project
        assert str(silenced({"a.py": code}, {path: ""})).startswith(f"the change writes {path}, which is not"), path
