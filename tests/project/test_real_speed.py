"""Real projects, real speed, over real HTTP with the scripted server: a repair runs the tests
that failed on the project as it is first (by node id), then the whole test command once
before it counts as healed (a change that breaks another test is not a heal, and says which);
the test time limit is derived from the run of the project as it is unless one is set."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from doubles import CountingSandbox
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal import build_graph
from codeheal.cli import main
from codeheal.context import Context, resolve
from codeheal.rules import (
    AS_IS_FACTOR,
    AS_IS_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    SCREEN_MIN_S,
    screen_time_limit,
)

CLAMP = '''def clamp(x, lo, hi):
    if x < lo:
        return hi
    if x > hi:
        return hi
    return x


def percent(x):
    return clamp(x, 0, 100)
'''
TEST_CLAMP = "from calc import clamp\n\n\ndef test_low():\n    assert clamp(-1, 0, 10) == 0\n\n\ndef test_inside():\n    assert clamp(5, 0, 10) == 5\n"
TEST_PERCENT = "from calc import percent\n\n\ndef test_mid():\n    assert percent(50) == 50\n"
BREAKS_PERCENT = "```python\n# calc.py\ndef clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return lo if hi == 100 else x\n```\n"
FIXED = "```python\n# calc.py\ndef clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n```\n"
TEST = "python -m pytest -q tests"


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CLAMP)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clamp.py").write_text(TEST_CLAMP)
    (tmp_path / "tests" / "test_percent.py").write_text(TEST_PERCENT)
    return tmp_path


def serve(*replies: str) -> ScriptedServer:
    queue = list(replies)

    def script(body: dict) -> str:
        if not is_fix_actor(body["messages"]):
            return "clamp returns hi below the range: return lo."
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return ScriptedServer(script)


def fix(server: ScriptedServer, project: Path, sandbox: CountingSandbox, **settings):
    # importers: these tests count and time the repairs' own runs; regression=runs (the default)
    # adds one whole-suite run with coverage of the project as it is (tests/project/test_regression_runs.py)
    context = resolve({"model": "scripted", "base_url": server.url, "max_attempts": 3, "mutants": 0,
                       "regression": "importers", **settings}).context
    app = build_graph(sandbox=sandbox).compile()
    return app.invoke({"project": str(project), "test_command": TEST}, context=context)


def test_the_failing_tests_run_first_and_the_whole_command_decides_a_heal(calc: Path) -> None:
    sandbox = CountingSandbox()
    with serve(BREAKS_PERCENT, FIXED) as server:
        result = fix(server, calc, sandbox)
    assert result["status"] == "passed" and result["attempts"] == 3
    broke = result["history"][1]
    assert "the failing tests pass now, but the change breaks 1 other test(s): test_mid" in broke["summary"]
    assert broke["passed_count"] == 2 and broke["total"] == 3
    as_is, rerun, *repairs = [job.python_args for job in sandbox.jobs]
    assert as_is[-1] == "tests" and rerun == as_is, "the failing project is rerun once, unchanged"
    assert [args[-1] for args in repairs] == ["tests/test_clamp.py::test_low", "tests"] * 2, (
        "each repair: the failing test alone, then the whole command"
    )
    assert "tests" not in repairs[0], "the failing test alone, not the whole folder beside it"


def test_the_time_limit_is_derived_from_the_run_of_the_project_as_it_is(calc: Path) -> None:
    sandbox = CountingSandbox()
    with serve(FIXED) as server:
        assert fix(server, calc, sandbox)["status"] == "passed"
    as_is, rerun, *repairs = sandbox.jobs
    assert as_is.timeout_s == rerun.timeout_s == AS_IS_TIMEOUT_S
    assert repairs and all(job.timeout_s == DEFAULT_TIMEOUT_S for job in repairs), "a fast project: at least 10 s"
    explicit = CountingSandbox()
    with serve(FIXED) as server:
        assert fix(server, calc, explicit, timeout_s=7.5)["status"] == "passed"
    assert {job.timeout_s for job in explicit.jobs} == {7.5}, "a limit the user set wins"


def test_progress_shows_each_attempts_test_time_and_its_limit(calc: Path, capsys) -> None:
    with serve(FIXED) as server:
        code = main(["fix", str(calc), "--test", TEST, "--model", "scripted", "--base-url", server.url,
                     "--checkpointer", str(calc / "checkpoints.sqlite")])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "attempt 1: failed, 2 of 3 passed (1 failed); tests ran " in err and f"sandbox, limit {AS_IS_TIMEOUT_S:g} s a run)" in err
    # attempt 2 screens one-line mutants at once: their summed sandbox time is said as such,
    # under the screen's limit (screen_time_limit)
    assert "attempt 2: passed, 3 of 3 checks; the best of " in err and " candidates, whose tests ran " in err
    limit = re.search(r"attempt 2: .* s in all \([^,)]*, limit ([0-9.]+) s a run\)", err)
    assert limit and SCREEN_MIN_S <= float(limit.group(1)) <= DEFAULT_TIMEOUT_S, err


def test_a_slow_project_gets_three_times_its_own_test_time(calc: Path) -> None:
    (calc / "tests" / "test_percent.py").write_text(
        "import time\n\nfrom calc import percent\n\n\ndef test_mid():\n    time.sleep(4)\n    assert percent(50) == 50\n"
    )
    sandbox = CountingSandbox()
    with serve(FIXED) as server:
        result = fix(server, calc, sandbox)
    assert result["status"] == "passed"
    # the limit's base is the as-is run's sandbox time (the attempt's own seconds add the rest of its work)
    as_is_seconds = sandbox.results[0].seconds
    assert 4 < as_is_seconds <= result["history"][0]["seconds"]
    limits = [job.timeout_s for job in sandbox.jobs[2:]]  # after the run of the project as it is and its rerun
    assert len(limits) == 2 and limits == pytest.approx([3 * as_is_seconds] * 2, abs=0.05) and limits[0] > 12


FILES = {"pkg/calc.py": "", "tests/unit/test_calc.py": "", "tests/unit/data.json": "", "pytest.ini": ""}


@pytest.mark.parametrize(("command", "narrowed"), [
    ("python -m pytest -q tests", "python -m pytest -q tests/unit/test_calc.py::test_a"),
    ("pytest -x tests/unit/test_calc.py -k calc", "pytest -x -k calc tests/unit/test_calc.py::test_a"),
    ("python -m pytest -c pytest.ini ./tests/", "python -m pytest -c pytest.ini tests/unit/test_calc.py::test_a"),
    ("python -m pytest", "python -m pytest tests/unit/test_calc.py::test_a"),
])
def test_the_command_narrowed_to_the_failing_node_ids(command: str, narrowed: str) -> None:
    from codeheal.forms.project.failing_first import failing_first
    from codeheal.forms.project.task import parse_test_command

    # A rootdir below the project's root (no ini file) names the file by its tail.
    ran = ["unit/test_calc.py::test_a", "unit/test_calc.py::test_b"]
    result = failing_first(parse_test_command(command), ["unit/test_calc.py::test_a"], ran, FILES)
    assert result is not None and " ".join(result.argv) == narrowed


def test_nothing_is_narrowed_when_every_test_failed_or_pytest_is_not_visible() -> None:
    from codeheal.forms.project.failing_first import failing_first
    from codeheal.forms.project.task import parse_test_command

    ids = ["tests/unit/test_calc.py::test_a"]
    assert failing_first(parse_test_command("python -m pytest tests"), ids, ids, FILES) is None
    assert failing_first(parse_test_command("make test"), ids, [*ids, "x::y"], FILES) is None
    assert failing_first(parse_test_command("pytest tests"), ["test_calc.py::test_a"], [*ids, "x::y"],
                         {**FILES, "other/test_calc.py": ""}) is None, "an ambiguous tail"


HANGS = "def steps_to_one(n):\n    steps = 0\n    while n != 1:\n        n = n // 2 + 1\n        steps += 1\n    return steps\n"
HALVES = "```python\n# calc.py\ndef steps_to_one(n):\n    steps = 0\n    while n != 1:\n        n = n // 2\n        steps += 1\n    return steps\n```\n"


def test_a_project_that_hangs_gives_its_repairs_the_default_limit(tmp_path: Path, monkeypatch) -> None:
    # The hang is the defect: a multiple of the limit it ran into would let every candidate
    # that keeps it hang that much longer (360 s each under the 120 s default).
    monkeypatch.setattr("codeheal.rules.AS_IS_TIMEOUT_S", 5.0)
    (tmp_path / "calc.py").write_text(HANGS)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_steps.py").write_text(
        "from calc import steps_to_one\n\n\ndef test_eight():\n    assert steps_to_one(8) == 3\n")
    sandbox = CountingSandbox()
    with serve(HALVES) as server:
        result = fix(server, tmp_path, sandbox)
    assert result["status"] == "passed"
    assert result["history"][0]["summary"].startswith("failed") and "timed out" in result["history"][0]["summary"]
    as_is, *repairs = sandbox.jobs
    assert as_is.timeout_s == 5.0 and repairs
    assert {job.timeout_s for job in repairs} == {DEFAULT_TIMEOUT_S}, "not 3 x 5 s"


def test_screened_mutants_run_under_a_shorter_limit_than_the_models_repairs(tmp_path: Path, monkeypatch) -> None:
    # Mutants that loop are dropped at the screen's limit (3x the run of the project as it
    # is, at least SCREEN_MIN_S), while the model's repair gets the whole default limit.
    monkeypatch.setattr("codeheal.rules.SCREEN_MIN_S", 2.0)
    (tmp_path / "calc.py").write_text(TWO_OFF)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_steps.py").write_text(
        "from calc import steps_to_one\n\n\ndef test_eight():\n    assert steps_to_one(8) == 3\n\n\n"
        "def test_one():\n    assert steps_to_one(1) == 0\n")
    sandbox = CountingSandbox()
    with serve(HALVES) as server:
        result = fix(server, tmp_path, sandbox, mutants=4)
    assert result["status"] == "passed" and result["attempts"] == 3, "the project as it is, the screen, the model"
    screen = max(2.0, AS_IS_FACTOR * sandbox.results[0].seconds)
    assert screen < DEFAULT_TIMEOUT_S, "a fast project"
    limits = [job.timeout_s for job in sandbox.jobs[2:]]  # after the project as it is and its rerun
    screened = limits[:limits.index(DEFAULT_TIMEOUT_S)]
    assert screened and screened == pytest.approx([screen] * len(screened), abs=0.01), limits
    assert set(limits[len(screened):]) == {DEFAULT_TIMEOUT_S}, "the model's repairs: the default limit"


TWO_OFF = "def steps_to_one(n):\n    steps = 0\n    while n > 1:\n        n = n // 3\n        steps += 2\n    return steps\n"
"""Two lines off (no one-line mutant passes), and it finishes."""


def test_the_screens_limit_follows_the_project_as_it_is_under_the_repairs_limit() -> None:
    default = Context()
    assert screen_time_limit(default, None) == DEFAULT_TIMEOUT_S, "the project as it is hung: a fix's time is unknown"
    assert screen_time_limit(default, 0.2) == SCREEN_MIN_S, "a fast project: the least limit"
    assert screen_time_limit(default, 3.0) == AS_IS_FACTOR * 3.0 < DEFAULT_TIMEOUT_S
    assert screen_time_limit(default, 30.0) == AS_IS_FACTOR * 30.0, "as long as a repair's"
    assert screen_time_limit(Context(timeout_s=2.5), 0.1) == 2.5, "never above the limit the user set"
    assert screen_time_limit(Context(timeout_s=60.0), 1.0) == SCREEN_MIN_S
