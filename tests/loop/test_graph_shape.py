"""The drawn graph, the pure routers, and the rules they apply."""

from __future__ import annotations

import dataclasses

from codeheal import Context, build_graph, graph
from codeheal.context import resolve
from codeheal.forms.module.form import ModuleForm
from codeheal.loop.routers import (
    route_after_attempt,
    route_after_preparing,
    route_after_review,
    route_start,
)
from codeheal.nodes.prepare_candidates import to_test
from codeheal.rules import after_evaluation, attempt_limit, best_attempt, final_status
from codeheal.state import AttemptState, State


def edges(drawn) -> dict[tuple[str, str], bool]:
    return {(e.source, e.target): e.conditional for e in drawn.edges}


START, END = "attempt:__start__", "attempt:__end__"
"""An attempt's start and end as the run's picture draws them (xray: the attempt's steps inside)."""


def test_drawn_graph_has_every_route_of_the_run_and_of_an_attempt():
    drawn = edges(graph.get_graph(xray=True))
    for target in ("reflector", START, "review", "finish"):  # after an attempt
        assert drawn[(END, target)] is True, target
    for conditional in [("reflector", START), ("reflector", "finish"), ("attempt:actor", "attempt:prepare_candidates"),
                        ("attempt:actor", END), ("attempt:prepare_candidates", "attempt:test_candidate"),
                        ("attempt:prepare_candidates", "attempt:actor"), ("attempt:evaluator", "attempt:test_candidate"),
                        ("attempt:evaluator", "attempt:selector"), ("attempt:evaluator", END),
                        ("attempt:selector", "attempt:test_candidate"), ("attempt:selector", "attempt:evaluator"),
                        ("attempt:selector", END)]:
        assert drawn[conditional] is True, conditional
    assert drawn[("finish", "__end__")] is False
    assert drawn[("prepare", START)] is False
    assert drawn[(START, "attempt:actor")] is True and drawn[(START, "attempt:test_candidate")] is True
    assert drawn[("review", START)] is True and drawn[("review", "finish")] is True
    assert drawn[("attempt:test_candidate", "attempt:evaluator")] is False
    run = edges(graph.get_graph())  # without xray: the run's steps, the attempt one of them
    for target in ("reflector", "attempt", "review", "finish"):
        assert run[("attempt", target)] is True, target


def test_every_loop_node_is_drawn_and_mermaid_shows_dotted_conditional_edges():
    nodes = set(build_graph().compile().get_graph(xray=True).nodes)
    assert {"__start__", "prepare", "attempt:actor", "attempt:prepare_candidates", "attempt:test_candidate", "attempt:evaluator", "attempt:selector",
            "reflector", "review", "finish", "__end__"} <= nodes
    mermaid = graph.get_graph(xray=True).draw_mermaid()
    assert "attempt\\3a__end__ -.-> reflector;" in mermaid and "attempt\\3a__end__ -.-> attempt\\3a__start__;" in mermaid
    assert "attempt\\3aevaluator -.-> attempt\\3aselector;" in mermaid and "subgraph attempt" in mermaid
    assert "finish --> __end__;" in mermaid


def test_route_start():
    state = AttemptState(form="module", candidates=["def f(): pass"], tests="assert f() is None", sandbox_session="s")
    (send,) = route_start(dataclasses.replace(state, prepared=to_test(state, state.candidates)))
    assert send.node == "test_candidate"
    key = ModuleForm().prepare(state, "def f(): pass")["key"]
    assert send.arg == {"form": "module", "candidate": "def f(): pass", "key": key, "index": 0, "session": "s", "tests": "assert f() is None"}
    assert route_start(AttemptState(candidates=[], prepared=[])) == "actor"
    assert route_start(AttemptState()) == "actor"


def test_route_after_preparing():
    state = AttemptState(form="module", candidates=["def f(): pass"], tests="assert f() is None", sandbox_session="s")
    (send,) = route_after_preparing(dataclasses.replace(state, prepared=to_test(state, state.candidates)))
    assert send.node == "test_candidate" and send.arg["candidate"] == "def f(): pass"
    repeats = [ModuleForm().prepare(state, "def f(): pass")]
    assert route_after_preparing(dataclasses.replace(state, repeats=repeats)) == "actor"  # drawn once more


def feedback(passed: bool) -> dict:
    return {"passed": passed}


def after(state: State, **settings: object) -> str:
    """rules.after_evaluation for a module run with these settings (by flat name)."""
    context = resolve(settings).context
    return after_evaluation(state, context, ModuleForm().policy_for(context.policy))


def test_after_evaluation_follows_the_outcome_the_cap_and_the_context():
    running = State(feedback=feedback(False), attempts=1)
    assert after(running) == "reflector"
    assert after(running, reflect=False) == "actor"
    assert after(State(feedback=feedback(True), attempts=1)) == "finish"
    exhausted = State(feedback=feedback(False), attempts=3)
    assert after(exhausted, max_attempts=3) == "finish"
    assert after(exhausted, max_attempts=3, review_on_exhaustion=True) == "review"
    assert after(dataclasses.replace(exhausted, attempt_limit=4), max_attempts=3) == "reflector"


def test_router_without_runtime_uses_the_default_context():
    assert route_after_attempt(State(form="module", feedback=feedback(False), attempts=1)) == "reflector"
    assert route_after_review(State(status="running")) == "attempt"
    assert route_after_review(State(status="accepted")) == "finish"


def test_final_status_and_attempt_limit():
    rules = Context().policy
    assert final_status(State(feedback=feedback(True)), rules) == "passed"
    assert final_status(State(feedback=feedback(False), status="accepted"), rules) == "accepted"
    assert final_status(State(feedback=feedback(False), status="running"), rules) == "failed"
    assert final_status(State(feedback=feedback(False), stop_reason="budget"), rules) == "budget"
    assert attempt_limit(State(), Context(max_attempts=5)) == 5
    assert attempt_limit(State(attempt_limit=7), Context(max_attempts=5)) == 7


def test_best_attempt_prefers_most_checks_then_the_latest():
    def attempt(n: int, passed: int, code: str = "x = 1") -> dict:
        return {"attempt": n, "passed_count": passed, "code": code}

    assert best_attempt([attempt(1, 2), attempt(2, 1)])["attempt"] == 1
    assert best_attempt([attempt(1, 2), attempt(2, 2)])["attempt"] == 2
    assert best_attempt([attempt(1, 0), attempt(2, 0, code="")])["attempt"] == 1


def test_with_reflect_off_the_run_goes_from_evaluator_to_actor():
    from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, fenced, node_updates, scripted

    app = build_graph(llm=scripted(fenced(BAD_ADD), fenced(GOOD_ADD))).compile()
    steps = [node for node, _ in node_updates(app.stream(
        {"task": "Add two numbers.", "tests": ADD_TESTS}, context=resolve({"reflect": False}).context,
        stream_mode="updates", subgraphs=True))]
    assert steps == ["prepare", "actor", "prepare_candidates", "test_candidate", "evaluator", "actor", "prepare_candidates", "test_candidate", "evaluator", "finish"]
