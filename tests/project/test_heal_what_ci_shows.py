"""What CI shows is healed, or refused with the right words: an import error in a project
module is a repair target; a command that cannot run, and a failure with no Python frame in the
project (a JavaScript project), are refused (exit 2) saying which; a test that fails once and
passes on a rerun of the unchanged project is flaky, reported, and not repaired."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from doubles import CountingSandbox, scripted

from codeheal import Context, build_graph
from codeheal.context import ProjectSettings
from codeheal.errors import FlakyTestsError, InputError
from codeheal.sandboxes.base import Job, RunResult

LIMITS = "from shop.consts import LIMT\n\n\ndef capped(n):\n    return min(n, LIMT)\n"
ATTRIBUTE = "from shop import consts\n\n\ndef capped(n):\n    return min(n, consts.LIMT)\n\n\nDEFAULT = capped(12)\n"
ATTRIBUTE_HEALED = "```python\n# shop/limits.py\ndef capped(n):\n    return min(n, consts.LIMIT)\n```\n"
HEALED = "```python\n# shop/limits.py\nfrom shop.consts import LIMIT\n\n\ndef capped(n):\n    return min(n, LIMIT)\n```\n"
LESSON = "shop.consts defines LIMIT, not LIMT."
TESTS = "from shop.limits import capped\n\n\ndef test_capped():\n    assert capped(12) == 10\n"


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def fix(model, root: Path, test_command: str, sandbox=None):
    return build_graph(llm=model, sandbox=sandbox).compile().invoke(
        {"project": str(root), "test_command": test_command},
        context=Context(max_attempts=2, project=ProjectSettings(mutants=0)),
    )


@pytest.fixture
def misspelled_import(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    return project(tmp_path / "p", {
        "shop/__init__.py": "", "shop/consts.py": "LIMIT = 10\n", "shop/limits.py": LIMITS,
        "tests/__init__.py": "", "tests/test_limits.py": TESTS,
    })


COMMANDS = ["python -m pytest -q", "python -m unittest discover -s tests -t ."]


@pytest.mark.parametrize("command", COMMANDS)
def test_a_misspelled_import_in_a_project_module_is_a_repair_target(misspelled_import: Path, command: str) -> None:
    """pytest reports it as a collection error whose traceback is text; its frames in the project
    are read from it, so the run goes on to the model, the module and its line in the prompt."""
    model = scripted(LESSON, HEALED)
    fix(model, misspelled_import, command)
    assert "shop/limits.py" in model.prompt(1) and "LIMT" in model.prompt(1)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_misspelled_name_at_import_time_is_healed(tmp_path: Path, monkeypatch, command: str) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    root = project(tmp_path / "p", {
        "shop/__init__.py": "", "shop/consts.py": "LIMIT = 10\n", "shop/limits.py": ATTRIBUTE,
        "tests/__init__.py": "", "tests/test_limits.py": TESTS,
    })
    result = fix(scripted(LESSON, ATTRIBUTE_HEALED), root, command)
    assert result["status"] == "passed", [h["summary"] for h in result["history"]]
    assert "+    return min(n, consts.LIMIT)\n" in result["diff"]


def test_a_command_that_cannot_run_stays_bad_input(tmp_path: Path) -> None:
    root = project(tmp_path / "p", {"calc.py": "X = 1\n"})
    model = scripted()
    with pytest.raises(InputError, match="'no-such-runner' is not installed"):  # found before anything runs
        fix(model, root, "no-such-runner --all")
    assert model.calls == []


def test_a_failure_with_no_python_frame_says_codeheal_repairs_python(tmp_path: Path) -> None:
    root = project(tmp_path / "js", {
        "package.json": '{"scripts": {"test": "sh test.sh"}}\n',
        "index.js": "module.exports = (a, b) => a - b;\n",
        "test.sh": "echo 'AssertionError [ERR_ASSERTION]: -1 == 5' >&2\necho '    at Object.<anonymous> (test.js:3:8)' >&2\nexit 1\n",
    })
    with pytest.raises(InputError, match="codeheal repairs Python code"):
        fix(scripted(), root, "sh test.sh")


class FirstRunFails(CountingSandbox):
    """The real sandbox, telling each job its number (RUN_NUMBER), so a test can fail on the first."""

    async def arun(self, job: Job) -> RunResult:
        return await super().arun(dataclasses.replace(job, env={**job.env, "RUN_NUMBER": str(len(self.jobs) + 1)}))


def test_a_test_that_passes_on_the_rerun_is_flaky_and_not_repaired(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    root = project(tmp_path / "p", {
        "calc.py": "def add(a, b):\n    return a + b\n",
        "test_calc.py": "import os\n\nfrom calc import add\n\n\ndef test_add():\n"
                        "    assert add(2, 3) == 5 and os.environ['RUN_NUMBER'] != '1'\n",
    })
    model, sandbox = scripted(), FirstRunFails()
    with pytest.raises(FlakyTestsError, match=r"then passed on a rerun of it unchanged: flaky tests, not repaired"):
        fix(model, root, "python -m pytest -q", sandbox)
    assert len(sandbox.jobs) == 2 and not model.calls, "one rerun, no model call"
