"""A pass that rests on one assert says so at its end (RunStatus.note: the CLI's dim line and
--json's `note`): one checked case lets code that gets the others wrong through. Judged for
real in the sandbox, driven by a scripted model."""

from __future__ import annotations

import pytest
from doubles import ScriptedModel, fenced

from codeheal import Context, build_graph
from codeheal.forms.module.form import ONE_ASSERT_NOTE

TASK = "Write `clamp(x, low, high)`: x limited to the range [low, high]."
WITH_EXAMPLE = TASK + "\n\n>>> clamp(5, 0, 3)\n3\n"
RIGHT = "def clamp(x, low, high):\n    return max(low, min(x, high))\n"
WRONG = "def clamp(x, low, high):\n    return low\n"


def end_note(task: str, tests: str, code: str = RIGHT) -> tuple[str, str | None]:
    model = ScriptedModel(messages=iter([fenced(code)] * 4))
    chunks = build_graph(llm=model).compile().stream(
        {"task": task, "tests": tests}, context=Context(policy="raw_error", max_attempts=2),
        stream_mode="custom")
    (status,) = [event for event in chunks if event["kind"] == "status"]
    return status["status"], status.get("note")


@pytest.mark.parametrize(("task", "tests", "noted"), [
    (TASK, "assert clamp(1, 0, 3) == 1\n", True),
    (TASK, "LOW = 0\nassert clamp(1, LOW, 3) == 1\n", True),  # a setup line is no check
    (TASK, "assert clamp(1, 0, 3) == 1\nassert clamp(5, 0, 3) == 3\n", False),
    (TASK, "def test_clamp():\n    assert clamp(1, 0, 3) == 1\n", False),  # a test function may check many cases
    (WITH_EXAMPLE, "assert clamp(1, 0, 3) == 1\n", False),  # the task's example is a second check
])
def test_a_pass_on_one_assert_says_that_one_case_was_checked(task: str, tests: str, noted: bool) -> None:
    status, note = end_note(task, tests)
    assert status == "passed"
    assert (note == ONE_ASSERT_NOTE) is noted
    if not noted:
        assert note is None


def test_a_failed_run_on_one_assert_gets_no_such_note() -> None:
    status, note = end_note(TASK, "assert clamp(1, 0, 3) == 1\n", WRONG)
    assert status == "failed" and note is None
