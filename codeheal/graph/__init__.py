"""The StateGraph (`builder`), its routers, and the loop policy they apply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codeheal.graph.builder import build_graph

__all__ = ["build_graph"]


def __getattr__(name: str) -> Any:
    # Imported on first use: nodes import `policy` from this package, and the builder
    # imports the nodes.
    if name == "build_graph":
        from codeheal.graph.builder import build_graph

        return build_graph
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
