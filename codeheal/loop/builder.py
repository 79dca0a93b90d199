"""Building the codeheal StateGraph."""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from codeheal.context import Context
from codeheal.errors import is_transient
from codeheal.loop.routers import (
    route_after_actor,
    route_after_evaluation,
    route_after_reflector,
    route_after_review,
    route_after_selector,
    route_start,
)
from codeheal.nodes.actor import make_actor
from codeheal.nodes.candidate_test import TEST_CANDIDATE, make_candidate_test
from codeheal.nodes.evaluator import evaluator
from codeheal.nodes.finish import make_finish
from codeheal.nodes.prepare import make_prepare
from codeheal.nodes.reflector import make_reflector
from codeheal.nodes.review import review
from codeheal.nodes.selection import make_selector
from codeheal.sandboxes.base import Sandbox
from codeheal.state import InputState, OutputState, State
from codeheal.steps import node

TRANSPORT_RETRY = RetryPolicy(
    max_attempts=3, initial_interval=1.0, backoff_factor=2.0, retry_on=is_transient
)
"""Model and sandbox transport faults are retried; they never count as an attempt."""


def build_graph(llm: BaseChatModel | None = None, sandbox: Sandbox | None = None) -> StateGraph:
    """The uncompiled codeheal graph. An `llm` or `sandbox` given here wins over the
    ones the run's Context names."""
    builder = StateGraph(
        State, context_schema=Context, input_schema=InputState, output_schema=OutputState
    )
    builder.add_node("prepare", make_prepare(sandbox))
    builder.add_node("actor", node(make_actor(llm), "actor"), retry_policy=TRANSPORT_RETRY)
    builder.add_node(TEST_CANDIDATE, node(make_candidate_test(sandbox), TEST_CANDIDATE), retry_policy=TRANSPORT_RETRY)
    builder.add_node("evaluator", evaluator)
    builder.add_node("reflector", node(make_reflector(llm), "reflector"), retry_policy=TRANSPORT_RETRY)
    builder.add_node("selector", node(make_selector(llm), "selector"), retry_policy=TRANSPORT_RETRY)
    builder.add_node("review", review)
    builder.add_node("finish", node(make_finish(sandbox), "finish"), retry_policy=TRANSPORT_RETRY)
    builder.add_edge(START, "prepare")
    builder.add_conditional_edges("prepare", route_start, ["actor", TEST_CANDIDATE])
    builder.add_conditional_edges("actor", route_after_actor, [TEST_CANDIDATE, "finish"])
    builder.add_edge(TEST_CANDIDATE, "evaluator")
    builder.add_conditional_edges("evaluator", route_after_evaluation,
                                  ["reflector", "actor", "review", "selector", "finish", TEST_CANDIDATE])
    builder.add_conditional_edges("reflector", route_after_reflector)
    builder.add_conditional_edges("selector", route_after_selector, [TEST_CANDIDATE, "finish", "evaluator"])
    builder.add_conditional_edges("review", route_after_review)
    builder.add_edge("finish", END)
    return builder
