"""Running one candidate through the real graph for the security tests."""

from __future__ import annotations

import time

from codeheal import Context, build_graph

TIMEOUT_S = 3.0
MARGIN_S = 2.5
"""How far past timeout_s a hostile run may end (pytest start-up on a busy 2-core machine)."""


def evaluate(code: str, tests: str, timeout_s: float = TIMEOUT_S) -> tuple[dict, float]:
    """Run `code` against `tests` through the real graph (no model: the code is the input),
    requiring bubblewrap. Returns every node update merged, and the seconds it took."""
    graph = build_graph(llm=None).compile()
    context = Context(max_attempts=1, timeout_s=timeout_s, require_isolation=True, sandbox="local")
    started = time.monotonic()
    updates: dict = {}
    for chunk in graph.stream({"task": "hostile", "tests": tests, "code": code},
                              context=context, stream_mode="updates"):
        for update in chunk.values():
            updates.update(update or {})
    return updates, time.monotonic() - started
