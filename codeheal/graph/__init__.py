"""The StateGraph: nodes joined by routers."""

from codeheal.graph.builder import build_graph

__all__ = ["build_graph"]
