"""Building the codeheal StateGraph: the run (prepare, the attempts, reflect, review,
finish) around the attempt's subgraph (loop/attempt.py)."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph

from codeheal.context import Context
from codeheal.loop.attempt import ATTEMPT, TRANSPORT_RETRY, make_attempt
from codeheal.loop.routers import (
    route_after_attempt,
    route_after_reflector,
    route_after_review,
)
from codeheal.nodes.finish import make_finish
from codeheal.nodes.prepare import make_prepare
from codeheal.nodes.reflector import make_reflector
from codeheal.nodes.review import review
from codeheal.sandboxes.base import Sandbox
from codeheal.state import InputState, OutputState, State
from codeheal.steps import node


def build_graph(llm: BaseChatModel | None = None, sandbox: Sandbox | None = None) -> StateGraph:
    """The uncompiled codeheal graph. An `llm` or `sandbox` given here wins over the
    ones the run's Context names."""
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("prepare", make_prepare(sandbox))
    builder.add_node(ATTEMPT, make_attempt(llm, sandbox))
    builder.add_node("reflector", node(make_reflector(llm), "reflector"), retry_policy=TRANSPORT_RETRY)
    builder.add_node("review", review)
    builder.add_node("finish", node(make_finish(sandbox), "finish"), retry_policy=TRANSPORT_RETRY)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", ATTEMPT)
    builder.add_conditional_edges(ATTEMPT, route_after_attempt)
    builder.add_conditional_edges("reflector", route_after_reflector)
    builder.add_conditional_edges("review", route_after_review)
    builder.add_edge("finish", END)
    return builder
