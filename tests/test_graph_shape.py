"""The drawn graph and the pure routers."""

from __future__ import annotations

from langgraph.graph import END

from codeheal import build_graph, graph
from codeheal.graph.routers import route_after_evaluation, route_start


def edges(drawn) -> dict[tuple[str, str], bool]:
    return {(e.source, e.target): e.conditional for e in drawn.edges}


def test_drawn_graph_has_the_conditional_edges_out_of_the_evaluator():
    drawn = edges(graph.get_graph())
    assert drawn[("evaluator", "reflector")] is True
    assert drawn[("evaluator", "__end__")] is True
    assert drawn[("reflector", "actor")] is False
    assert drawn[("actor", "evaluator")] is False
    assert drawn[("prepare", "actor")] is True and drawn[("prepare", "evaluator")] is True


def test_every_loop_node_is_drawn_and_mermaid_shows_dotted_conditional_edges():
    nodes = set(build_graph().compile().get_graph().nodes)
    assert {"__start__", "prepare", "actor", "evaluator", "reflector", "__end__"} <= nodes
    mermaid = graph.get_graph().draw_mermaid()
    assert "evaluator -.-> reflector;" in mermaid and "evaluator -.-> __end__;" in mermaid


def test_route_start():
    assert route_start({"candidates": ["def f(): pass"]}) == "evaluator"
    assert route_start({"candidates": []}) == "actor"
    assert route_start({}) == "actor"


def test_route_after_evaluation():
    assert route_after_evaluation({"status": "running"}) == "reflector"
    assert route_after_evaluation({"status": "passed"}) == END
    assert route_after_evaluation({"status": "failed"}) == END
