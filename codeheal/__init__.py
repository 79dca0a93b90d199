"""codeheal: a self-healing code generation loop (actor, evaluator, reflector) in LangGraph."""

from codeheal.context import Context
from codeheal.graph import build_graph

graph = build_graph().compile(name="codeheal")

__all__ = ["Context", "build_graph", "graph"]
