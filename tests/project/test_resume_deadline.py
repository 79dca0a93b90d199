"""A run resumed mid-attempt keeps a correct deadline: the run's time is a budget of seconds
counted from each start (`codeheal resume` sets it afresh), inside the attempt it was cut in
too, so the candidates left to test run under their own limits, not the 1 s floor of a deadline
that passed while the run stood still; a resume that does not set it afresh ends at once with
status "deadline" and the best so far, never with unlimited time."""

from __future__ import annotations

import types
from pathlib import Path

import pytest
from doubles import CountingSandbox
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from codeheal import build_graph, rules
from codeheal.context import resolve
from codeheal.sandboxes.base import Job, RunResult

TEST = "python -m pytest -q"
AS_IS_RUNS = 2
CUT_AT = AS_IS_RUNS + 4
"""The job the run is cut at: the first of the screen's second batch."""
SUMS = ("def total(items, start=0, cap=1000):\n    result = start\n    count = 0\n    for item in items:\n"
        "        count = count + 1\n        result = item\n    if count > 0 and result < cap:\n        return result\n"
        "    return min(result, cap)\n")
"""No one-token change heals `result = item` (it wants `+=`), and the screen has over 16 mutants."""
DEADLINE_S = 300.0
STOOD_STILL_S = 1000.0
"""Longer than the run's time: its old deadline has passed when it resumes."""


class CutOnce(CountingSandbox):
    """A real local sandbox whose CUT_AT-th job stops the run (as Ctrl-C would), once."""

    def __init__(self) -> None:
        super().__init__()
        self.cut = False

    async def arun(self, job: Job) -> RunResult:
        if len(self.jobs) == CUT_AT and not self.cut:
            self.cut = True
            raise KeyboardInterrupt
        return await super().arun(job)


@pytest.fixture
def cut_run(tmp_path: Path, monkeypatch):
    """A fix run cut in its screen, and its clock moved on past its deadline."""
    clock = [1_000_000.0]
    monkeypatch.setattr(rules, "time", types.SimpleNamespace(time=lambda: clock[0]))
    (tmp_path / "sums.py").write_text(SUMS)
    (tmp_path / "test_sums.py").write_text("from sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n")
    sandbox = CutOnce()
    graph = build_graph(llm=GenericFakeChatModel(messages=iter(["no code"] * 10)), sandbox=sandbox).compile(
        checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "cut"}}
    context = resolve({"max_attempts": 2, "mutants": 40, "reflect": False, "deadline_s": DEADLINE_S}).context
    with pytest.raises(KeyboardInterrupt):
        for _ in graph.stream({"project": str(tmp_path), "test_command": TEST}, config, context=context):
            pass
    assert graph.get_state(config).next == ("attempt",)  # cut in the screen's attempt
    clock[0] += STOOD_STILL_S
    return graph, config, context, sandbox


def _resume(graph, config, context, command) -> tuple[list[dict], dict]:
    events, result = [], {}
    for mode, chunk in graph.stream(command, config, context=context, stream_mode=["custom", "values"]):
        (events.append if mode == "custom" else result.update)(chunk)
    return events, result


def test_a_run_resumed_mid_attempt_counts_its_time_afresh_inside_the_attempt(cut_run) -> None:
    graph, config, context, sandbox = cut_run
    events, result = _resume(graph, config, context, Command(update={"deadline": rules.deadline_from_now(context)}))
    resumed = sandbox.jobs[CUT_AT:]
    assert resumed  # the screen went on where it was cut
    assert all(job.timeout_s > rules.TEST_FLOOR_S for job in resumed)  # not the floor of a passed deadline
    screen = result["history"][1]
    assert screen["candidates_tested"] > 4  # the batch it was cut in, tested then, not lost
    assert result["status"] == "failed" and result["attempts"] == 3  # the model's attempt ran: time was left
    started = [e for e in events if e["kind"] == "attempt_started"]
    assert started[-1]["seconds_left"] == DEADLINE_S


def test_a_resume_that_keeps_the_passed_deadline_ends_at_once_with_its_best(cut_run) -> None:
    graph, config, context, sandbox = cut_run
    events, result = _resume(graph, config, context, None)
    assert result["status"] == "deadline" and result["attempts"] == 2  # the screen recorded, no model call
    assert events[-1] == {"kind": "status", "status": "deadline", "attempts": 2}
