"""The project form (`codeheal fix`) against changes that try to pass without passing, and
projects whose tests cannot run, through the real graph and the real bubblewrap sandbox
with a scripted model. A pass means every test the project as it is ran, ran and passed."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
from bwrap_probe import bwrap_usable
from doubles import scripted
from hostile_run import FIND_CLASS

from codeheal import build_graph
from codeheal.cli import main
from codeheal.context import resolve

pytestmark = pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here")

SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"
TEST = "python -m pytest -q"
FIXED_LOOP = (
    "    for threshold, percent in DISCOUNT_TIERS:\n"
    "        if quantity >= threshold:\n"
    "            return percent\n"
    "    return 0\n"
)


def change(body: str) -> str:
    """A reply redefining the shop's broken bulk_discount with `body`."""
    return ("```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n"
            '    """Percent off for buying `quantity` of one item."""\n' + body + "```\n")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    return project


def repair(project: Path, reply: str, **settings: object) -> dict:
    """Every node update of a run whose one repair is `reply` (the tamper scan off unless
    `settings` turn it on), after the project as it is was tested."""
    model = scripted(reply)
    context = resolve({"max_attempts": 2, "reflect": False, "timeout_s": 20, "tamper_scan": False, "mutants": 0,
                       **settings}).context
    updates: dict = {}
    for chunk in build_graph(llm=model).compile().stream(
        {"project": str(project), "test_command": TEST}, context=context, stream_mode="updates",
    ):
        for update in chunk.values():
            updates.update(update or {})
    return updates


def not_passed(project: Path, reply: str, **settings: object) -> dict:
    updates = repair(project, reply, **settings)
    assert updates["status"] == "failed" and not updates["feedback"]["passed"], updates["feedback"]
    return updates["feedback"]


def test_the_honest_repair_passes(shop: Path) -> None:
    assert repair(shop, change(FIXED_LOOP))["status"] == "passed"


def test_a_test_the_project_itself_skips_does_not_block_a_heal(shop: Path) -> None:
    # real suites skip tests of their own accord (a platform, an optional extra): not checks to pass
    (shop / "tests" / "test_platform.py").write_text(
        "import pytest\n\n\n@pytest.mark.skip(reason='needs another platform')\ndef test_elsewhere():\n"
        "    assert False\n\n\n@pytest.mark.xfail(reason='known')\ndef test_known():\n    assert False\n"
    )
    updates = repair(shop, change(FIXED_LOOP))
    assert updates["status"] == "passed" and updates["feedback"]["passed"], updates["feedback"]
    assert updates["feedback"]["passed_count"] == updates["feedback"]["total"] == 12


def test_skipping_the_failing_tests_is_not_a_pass(shop: Path) -> None:
    body = ("    import unittest\n    for threshold, percent in DISCOUNT_TIERS:\n"
            "        if quantity == threshold:\n            raise unittest.SkipTest('not today')\n"
            "        if quantity > threshold:\n            return percent\n    return 0\n")
    feedback = not_passed(shop, change(body))
    skipped = [f for f in feedback["failures"] if f["exception"] == "NotRun"]
    assert skipped and all("did not run: skipped (not today)" in f["message"] for f in skipped), feedback["failures"]


@pytest.mark.parametrize("ending", [
    "raise find('Exit')('done', returncode=0)",
    "import os; os._exit(0)",
    "import os; os.execv('/bin/true', ['/bin/true'])",
])
def test_ending_the_session_early_is_not_a_pass(shop: Path, ending: str) -> None:
    body = textwrap.indent(FIND_CLASS, "    ") + f"    if quantity == 10:\n        {ending}\n" + FIXED_LOOP
    feedback = not_passed(shop, change(body))
    assert feedback["error"] or any(f["exception"] == "NotRun" for f in feedback["failures"]), feedback


def test_pytest_exit_names_the_tests_that_did_not_run(shop: Path) -> None:
    body = textwrap.indent(FIND_CLASS, "    ") + "    if quantity == 10:\n        raise find('Exit')('done', returncode=0)\n" + FIXED_LOOP
    feedback = not_passed(shop, change(body))
    assert [f for f in feedback["failures"] if f["exception"] == "NotRun" and "no result" in f["message"]]


def test_a_comparison_that_ignores_its_argument_is_refused_with_a_reason(shop: Path) -> None:
    body = ("    class Percent(int):\n        def __eq__(self, other):\n            return True\n"
            "        __hash__ = int.__hash__\n    return Percent(0)\n")
    feedback = not_passed(shop, change(body), tamper_scan=True)
    assert "__eq__ ignores the value it is compared with" in feedback["error"]


def test_no_tests_collected_stops_before_the_model(shop: Path, capsys) -> None:
    for test_file in (shop / "tests").glob("test_*.py"):
        test_file.unlink()
    assert_stops_before_the_model(shop, capsys, "no tests were collected")


def test_a_test_file_that_does_not_import_stops_before_the_model(shop: Path, capsys) -> None:
    (shop / "tests" / "test_broken.py").write_text("from shop.nowhere import thing\n\ndef test_x():\n    pass\n")
    assert_stops_before_the_model(shop, capsys, "cannot test the project as it is", "tests/test_broken.py")


def test_every_test_failing_in_its_setup_stops_before_the_model(tmp_path: Path, capsys) -> None:
    project = tmp_path / "p"
    (project / "tests").mkdir(parents=True)
    (project / "app.py").write_text("def f():\n    return 1\n")
    (project / "tests" / "test_app.py").write_text(
        "from app import f\n\ndef test_a(database):\n    assert f() == 1\n\ndef test_b(database):\n    assert f()\n")
    assert_stops_before_the_model(project, capsys, "cannot test the project as it is", "fixture 'database' not found")


def assert_stops_before_the_model(project: Path, capsys, *messages: str) -> None:
    code = main(["fix", str(project), "--test", TEST, "--model", "unreachable", "--base-url", "http://127.0.0.1:9/v1"])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2, err
    for message in messages:
        assert message in err
