"""codeheal: a self-healing code generation loop (actor, evaluator, reflector) in LangGraph."""

from codeheal.batch import BatchItem, solve_many
from codeheal.checkpointers import open_async_checkpointer, open_checkpointer
from codeheal.context import Context
from codeheal.graph import build_graph

graph = build_graph().compile(name="codeheal")

__all__ = [
    "BatchItem", "Context", "build_graph", "graph", "open_async_checkpointer", "open_checkpointer",
    "solve_many",
]
