"""The loop: the StateGraph's builder, its routers and its drawing."""

from codeheal.loop.builder import build_graph

__all__ = ["build_graph"]
