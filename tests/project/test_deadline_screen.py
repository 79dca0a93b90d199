"""The project form at its deadline: the screen sends no more batches once the run's time is out,
and the run ends with status "deadline" and the best it found."""

from __future__ import annotations

import types
from pathlib import Path

from doubles import SlowClockSandbox
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

from codeheal import build_graph, rules
from codeheal.context import resolve
from codeheal.nodes.candidate_test import FIRST_BATCH

TEST = "python -m pytest -q"
STEP_S = 100.0
"""The seconds each test run takes on the test's clock."""


def test_a_deadline_that_passes_mid_screen_ends_the_run_with_its_best_so_far(tmp_path: Path, monkeypatch) -> None:
    # no one-token change heals `result = item` (it wants `+=`): the screen would test every mutant
    (tmp_path / "sums.py").write_text(
        "def total(items):\n    result = 0\n    for item in items:\n        result = item\n    return result\n")
    (tmp_path / "test_sums.py").write_text("from sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n")
    clock = [1_000_000.0]
    monkeypatch.setattr(rules, "time", types.SimpleNamespace(time=lambda: clock[0]))
    # the screen's own time as long as the run's: the run's time ends first
    monkeypatch.setattr(rules, "SCREEN_SHARE", 1.0)
    monkeypatch.setattr(rules, "SCREEN_BUDGET_MIN_S", float("inf"))
    request = {"project": str(tmp_path), "test_command": TEST}
    settings = {"max_attempts": 2, "mutants": 10, "reflect": False}

    unbounded = SlowClockSandbox(clock, STEP_S)
    build_graph(llm=GenericFakeChatModel(messages=iter([])), sandbox=unbounded).compile().invoke(
        request, context=resolve({**settings, "max_attempts": 1}).context)
    as_is_runs = len(unbounded.jobs)  # the test runs of the project as it is

    sandbox = SlowClockSandbox(clock, STEP_S)
    deadline = STEP_S * (as_is_runs + 3) + STEP_S / 2  # passes during the screen
    events, result = [], {}
    graph = build_graph(llm=GenericFakeChatModel(messages=iter([])), sandbox=sandbox).compile()
    for mode, chunk in graph.stream(request, context=resolve({**settings, "deadline_s": deadline}).context,
                                    stream_mode=["custom", "values"]):
        (events.append if mode == "custom" else result.update)(chunk)
    assert (result["status"], result["attempts"]) == ("deadline", 2)  # no model call: the model has no reply
    screen = result["history"][1]
    # Of the 10 mutants, the batches sent before the time ran out (a mutant refused before it runs takes no time).
    assert FIRST_BATCH <= screen["candidates_tested"] < 10 and screen["tokens"] == 0
    started = [e for e in events if e["kind"] == "attempt_started"]
    assert started == [{"kind": "attempt_started", "attempt": 2, "max_attempts": 3,
                        "seconds_left": deadline - STEP_S * as_is_runs}]
    assert events[-1] == {"kind": "status", "status": "deadline", "attempts": 2}
