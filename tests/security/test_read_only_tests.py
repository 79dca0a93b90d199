"""Tests read-only (real bubblewrap sandbox): code under test that runs before the tests are
collected (the shop's package, imported by the first test module) cannot change a later test
module, a conftest or pytest's configuration, by any route: writing, removing, renaming the
file or its folder or the workspace, changing its mode, planting bytecode for it, or a link.
The tests that ran are the project's own: the broken shop still fails 4 of its 12 checks.
An edit that touches a test file or the tests' configuration is refused before it runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable

from codeheal.evaluation.feedback import run_feedback
from codeheal.evaluation.jobs import make_job
from codeheal.forms.project.job import project_job, project_tests
from codeheal.forms.project.snapshot import read_project
from codeheal.forms.project.task import load_project
from codeheal.sandboxes import LocalSandbox

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")

SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"
FORGED = "def test_forged():\n    pass\n"
ATTACKS = {
    "write": "open(target, 'w').write(FORGED)",
    "remove and recreate": "os.remove(target); open(target, 'w').write(FORGED)",
    "replace": "open('forged.py', 'w').write(FORGED); os.replace('forged.py', target)",
    "chmod": "os.chmod(target, 0o666); open(target, 'w').write(FORGED)",
    "rename the folder": ("os.rename('tests', 'tests_old'); os.makedirs('tests/data');"
                          " [open(os.path.join('tests', n), 'w').write(FORGED) for n in os.listdir('tests_old') if n.endswith('.py')]"),
    "rename the workspace": ("here = os.getcwd(); os.rename(here, here + '_old'); os.makedirs(here + '/tests');"
                             " open(here + '/' + target, 'w').write(FORGED)"),
    "truncate through a link": "os.symlink(os.path.abspath(target), 'link.py'); open('link.py', 'w').write(FORGED)",
    "plant bytecode": (
        "import importlib.util, marshal, sys, _pytest._version as v;"
        " os.makedirs('tests/__pycache__', exist_ok=True);"
        " head = importlib.util.MAGIC_NUMBER + b'\\x03\\x00\\x00\\x00'"
        " + importlib.util.source_hash(open(target, 'rb').read())[:8];"
        " code = marshal.dumps(compile(FORGED, os.path.abspath(target), 'exec'));"
        " open(f'tests/__pycache__/test_pricing.{sys.implementation.cache_tag}-pytest-{v.version}.pyc', 'wb')"
        ".write(head + code)"),
    "rewrite the configuration": "open('pyproject.toml', 'w').write('[tool.pytest.ini_options]\\naddopts = \"-k forged\"\\n')",
    "rewrite a conftest": "open('conftest.py', 'a').write('\\nimport pytest\\npytest_collection_modifyitems = lambda items: items.clear()\\n')",
}


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return project


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_code_under_test_cannot_change_the_tests_before_they_are_collected(shop: Path, attack: str) -> None:
    task = load_project(str(shop), "python -m pytest -q")
    files = dict(read_project(shop).files)
    files["shop/__init__.py"] += (
        "\nimport os\nFORGED = " + repr(FORGED) + "\ntarget = 'tests/test_pricing.py'\n"
        "try:\n    " + ATTACKS[attack] + "\nexcept OSError as exc:\n    print('refused:', exc)\n"
    )
    job = project_job(files, task.command, 60, python=task.interpreter)
    assert {"tests/test_pricing.py", "conftest.py", "pyproject.toml"} <= job.read_only
    feedback = run_feedback(LocalSandbox().run(job), None)
    assert not feedback["passed"]
    assert (feedback["passed_count"], feedback["total"]) == (8, 12), feedback["failures"]
    assert "test_forged" not in str(feedback["failures"])


def test_the_module_forms_tests_and_harness_are_read_only() -> None:
    """All but the candidate and the test module, which the test process empties before the
    candidate's process starts (tests/security/test_candidate_process.py)."""
    job = make_job("def add(a, b):\n    return a + b\n", "assert add(1, 1) == 2\n", 10)
    assert job.read_only == frozenset(job.files) - {"solution.py", "test_solution.py"}


def test_every_kind_of_test_file_is_read_only() -> None:
    files = {name: "" for name in ("app.py", "tests/helpers.py", "test_a.py", "pkg/b_test.py", "pkg/conftest.py",
                                    "setup.cfg", "tox.ini", "pytest.ini", "pyproject.toml", "testing/data.py")}
    assert project_tests(files) == set(files) - {"app.py"}


@pytest.mark.parametrize("path", ["tests/test_pricing.py", "conftest.py", "tests/helpers.py"])
def test_an_edit_of_a_test_file_is_refused(shop: Path, path: str) -> None:
    from codeheal.forms.project.edits import apply_reply
    from codeheal.forms.project.run import refusal

    (shop / "tests" / "helpers.py").write_text("def helper():\n    return 1\n")
    files = read_project(shop).files
    name = "helper" if "helpers" in path else ("catalog" if path == "conftest.py" else "test_no_discount_for_a_few")
    reply = f"```python\n# {path}\ndef {name}():\n    return 2\n```\n"
    edit = apply_reply(files, reply)
    assert "part of the tests" in (refusal(None, edit.changed) or "")
