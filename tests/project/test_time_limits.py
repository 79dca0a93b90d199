"""Per-test time limits learned from the run of the project as it is (forms/project/time_limits.py,
evaluation/clock.py): a candidate that hangs in a test that took milliseconds there is stopped
in about a second, not at its run's limit; a project whose tests hang as they are is said to,
in the progress and in the repair prompt. Real sandbox runs, scripted model over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles import CountingSandbox
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal import build_graph
from codeheal.cli import main
from codeheal.context import resolve
from codeheal.forms.project.time_limits import LIMITS_FILE, learned_limits
from codeheal.rules import DEFAULT_TIMEOUT_S, TEST_FACTOR, TEST_FLOOR_S, per_test_limit

CLAMP = "def clamp(x, lo, hi):\n    if x < lo:\n        return hi\n    if x > hi:\n        return hi\n    return x\n"
TESTS = ("from calc import clamp\n\n\ndef test_low():\n    assert clamp(-1, 0, 10) == 0\n\n\n"
         "def test_inside():\n    assert clamp(5, 0, 10) == 5\n\n\ndef test_high():\n    assert clamp(11, 0, 10) == 10\n")
HANGS_INSIDE = ("```python\n# calc.py\ndef clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n"
                "        return hi\n    while x == 5:\n        pass\n    return x\n```\n")
FIXED = ("```python\n# calc.py\ndef clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n"
         "        return hi\n    return x\n```\n")
TEST = "python -m pytest -q tests"


def serve(*replies: str, prompts: list[str] | None = None) -> ScriptedServer:
    queue = list(replies)

    def script(body: dict) -> str:
        if prompts is not None:
            prompts.append(body["messages"][-1]["content"])
        if not is_fix_actor(body["messages"]):
            return "clamp returns hi below the range: return lo."
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return ScriptedServer(script)


def fix(server: ScriptedServer, project: Path, sandbox: CountingSandbox, **settings):
    context = resolve({"model": "scripted", "base_url": server.url, "max_attempts": 3, "mutants": 0, **settings}).context
    return build_graph(sandbox=sandbox).compile().invoke({"project": str(project), "test_command": TEST}, context=context)


@pytest.fixture
def calc(tmp_path: Path) -> Path:
    (tmp_path / "calc.py").write_text(CLAMP)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clamp.py").write_text(TESTS)
    return tmp_path


def test_a_candidate_that_hangs_in_a_fast_test_is_stopped_in_about_its_own_limit(calc: Path) -> None:
    sandbox = CountingSandbox()
    with serve(HANGS_INSIDE, FIXED) as server:
        result = fix(server, calc, sandbox)
    assert result["status"] == "passed" and result["attempts"] == 3
    hung = result["history"][1]
    assert "test_inside ran past its own limit of 1 s" in hung["summary"], hung["summary"]
    # the job that ran the whole command on the hanging candidate: its limit is the run's (10 s),
    # but the test's own limit stopped it in about a second after pytest started
    hanging = next(r for r in sandbox.results if r.timed_out or "overrun" in r.report)
    assert "overrun" in hanging.report and hanging.seconds < 0.6 * DEFAULT_TIMEOUT_S, hanging.seconds
    limits = json.loads(sandbox.jobs[-1].files[LIMITS_FILE])
    assert set(limits) == {"tests/test_clamp.py::test_inside", "tests/test_clamp.py::test_high"}, (
        "the tests that passed as they are; test_low failed and has no passing case of its own function"
    )
    assert set(limits.values()) == {TEST_FLOOR_S}, "tests of milliseconds: the floor"
    assert LIMITS_FILE in sandbox.jobs[-1].read_only
    assert LIMITS_FILE not in sandbox.jobs[0].files, "the project as it is runs under the run's limit alone"


def test_a_project_whose_tests_hang_as_they_are_is_said_to_in_progress_and_prompt(tmp_path: Path, monkeypatch,
                                                                                    capsys) -> None:
    monkeypatch.setattr("codeheal.rules.AS_IS_TIMEOUT_S", 4.0)
    (tmp_path / "calc.py").write_text(CLAMP.replace("    return x\n", "    while x == 5:\n        pass\n    return x\n"))
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clamp.py").write_text(TESTS)
    prompts: list[str] = []
    with serve(FIXED, prompts=prompts) as server:
        code = main(["fix", str(tmp_path), "--test", TEST, "--model", "scripted", "--base-url", server.url,
                     "--mutants", "0", "--checkpointer", str(tmp_path / "checkpoints.sqlite")])
    err = " ".join(capsys.readouterr().err.split())  # the progress wraps its lines
    assert code == 0, err
    said = "test_inside hung (still running when the run's limit of 4 s ran out)"
    assert f"timed out on the project as it is: {said}" in err, err
    assert prompts and "test_inside: Timeout: hung on the project as it is: still running when the run's limit of 4 s ran out" in prompts[0]


def test_a_slow_fixture_is_not_counted_in_the_limit_of_the_test_that_sets_it_up(tmp_path: Path) -> None:
    # As the project is, test_first's turn sets up the module's fixture (1.5 s); a repair's
    # first run holds the failing case of test_clamp alone, whose turn sets it up then (its
    # limit, its passing sibling's, about a second): only the bodies are timed, so it is not stopped.
    (tmp_path / "calc.py").write_text(CLAMP)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_clamp.py").write_text(
        "import time\n\nimport pytest\n\nfrom calc import clamp\n\n\n@pytest.fixture(scope='module')\n"
        "def slow():\n    time.sleep(1.5)\n\n\ndef test_first(slow):\n    assert clamp(11, 0, 10) == 10\n\n\n"
        "@pytest.mark.parametrize('x, want', [(5, 5), (-1, 0)])\n"
        "def test_clamp(slow, x, want):\n    assert clamp(x, 0, 10) == want\n")
    sandbox = CountingSandbox()
    with serve(FIXED) as server:
        result = fix(server, tmp_path, sandbox)
    assert result["status"] == "passed" and result["attempts"] == 2, [a["summary"] for a in result["history"]]
    limits = json.loads(sandbox.jobs[-1].files[LIMITS_FILE])
    assert set(limits.values()) == {TEST_FLOOR_S}, "the bodies took milliseconds; the failing case has its sibling's"
    assert not any("overrun" in r.report for r in sandbox.results)


def test_a_failing_case_gets_the_limit_of_its_passing_siblings() -> None:
    durations = {"t.py::test_a[1]": 0.01, "t.py::test_a[2]": 0.4, "t.py::test_a[3]": 0.002, "t.py::test_b": 0.001,
                 "t.py::test_c": 3.0}
    limits = learned_limits(durations, passed={"t.py::test_a[1]", "t.py::test_a[2]", "t.py::test_c", "t.py::test_gone"},
                            failed={"t.py::test_a[3]", "t.py::test_b"})
    assert limits == {"t.py::test_a[1]": TEST_FLOOR_S, "t.py::test_a[2]": TEST_FACTOR * 0.4,
                      "t.py::test_a[3]": TEST_FACTOR * 0.4, "t.py::test_c": TEST_FACTOR * 3.0}
    assert per_test_limit(0.0) == TEST_FLOOR_S
