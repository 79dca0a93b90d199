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
    narrator.on_event({"kind": "reflection_written", "attempt": 1, "reflection": TRICKY})
    narrator.on_event({
        "kind": "tests_result", "attempt": 1, "passed": False, "passed_count": 0, "total": 1,
        "summary": f"failed 0/1 passed; {TRICKY}", "seconds": 0.2, "sandbox_seconds": 0.1, "isolation": "bwrap",
    })
    printed = out.getvalue()
    assert f"reflection: {TRICKY}" in printed
    assert f"failed 0/1 passed; {TRICKY}" in printed
