"""Progress output prints model text literally: brackets in it are not rich markup."""

from __future__ import annotations

import io

from rich.console import Console

from codeheal.context import Context
from codeheal.runner import _Narrator

TRICKY = "use [x for x in items], not [/foo] or [bold]"


def test_reflections_and_summaries_with_brackets_are_printed_as_written() -> None:
    out = io.StringIO()
    narrator = _Narrator(Console(file=out, width=400), Context())
    narrator.on_update("reflector", {"reflections": [TRICKY]})
    feedback = {"passed": False, "passed_count": 0, "total": 1, "seconds": 0.1, "isolation": "bwrap"}
    record = {"attempt": 1, "summary": f"failed 0/1 passed; {TRICKY}"}
    narrator.on_update("evaluator", {"feedback": feedback, "history": [record], "status": "failed"})
    printed = out.getvalue()
    assert f"reflection: {TRICKY}" in printed
    assert f"failed 0/1 passed; {TRICKY}" in printed
