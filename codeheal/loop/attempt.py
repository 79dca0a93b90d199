"""One attempt, drawn as a subgraph of its own: the actor draws the candidates,
`prepare_candidates` prepares them once (`prepared`; a retry every reply of which repeats
code tried before goes back to the actor, to be drawn once more, hotter), `test_candidate`
tests them, one `Send` per candidate, batch after batch, the evaluator chooses and records the
attempt, and, when a passing attempt chooses by execution, the selector's rounds test more. It
runs on AttemptState and hands the run its AttemptOutcome; the parent graph (builder.py) keeps
the run around it.

The parent runs it from a node of its own (`make_attempt`), not as a node added directly: the
attempt's scratch fields stay its own, and its progress events reach the caller's stream as
every other node's do (without `subgraphs=True`). Its checkpoints are the parent's, under the
attempt's namespace: a run cut short mid-attempt resumes there."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, RetryPolicy

from codeheal.context import Context
from codeheal.errors import is_transient
from codeheal.loop.routers import (
    route_after_actor,
    route_after_evaluation,
    route_after_preparing,
    route_after_selector,
    route_start,
)
from codeheal.nodes.actor import make_actor
from codeheal.nodes.candidate_test import TEST_CANDIDATE, make_candidate_test
from codeheal.nodes.evaluator import evaluator
from codeheal.nodes.prepare_candidates import PREPARE_CANDIDATES, prepare_candidates
from codeheal.nodes.selection import make_selector
from codeheal.sandboxes.base import Sandbox
from codeheal.state import AttemptOutcome, AttemptState, State, fields_of
from codeheal.steps import node

TRANSPORT_RETRY = RetryPolicy(
    max_attempts=3, initial_interval=1.0, backoff_factor=2.0, retry_on=is_transient
)
"""Model and sandbox transport faults are retried; they never count as an attempt."""

ATTEMPT = "attempt"
OUTCOME_KEYS = tuple(AttemptOutcome.__annotations__)


def build_attempt(llm: BaseChatModel | None = None, sandbox: Sandbox | None = None) -> CompiledStateGraph:
    """The attempt's compiled subgraph (no checkpointer of its own: it uses its parent's)."""
    builder = StateGraph(AttemptState, context_schema=Context, output_schema=AttemptOutcome)
    builder.add_node("actor", node(make_actor(llm), "actor"), retry_policy=TRANSPORT_RETRY)
    builder.add_node(PREPARE_CANDIDATES, prepare_candidates)
    builder.add_node(TEST_CANDIDATE, node(make_candidate_test(sandbox), TEST_CANDIDATE), retry_policy=TRANSPORT_RETRY)
    builder.add_node("evaluator", evaluator)
    builder.add_node("selector", node(make_selector(llm), "selector"), retry_policy=TRANSPORT_RETRY)
    builder.add_conditional_edges(START, route_start, ["actor", TEST_CANDIDATE])
    builder.add_conditional_edges("actor", route_after_actor, [PREPARE_CANDIDATES, END])
    builder.add_conditional_edges(PREPARE_CANDIDATES, route_after_preparing, [TEST_CANDIDATE, "actor"])
    builder.add_edge(TEST_CANDIDATE, "evaluator")
    builder.add_conditional_edges("evaluator", route_after_evaluation, ["selector", TEST_CANDIDATE, END])
    builder.add_conditional_edges("selector", route_after_selector, [TEST_CANDIDATE, "evaluator", END])
    return builder.compile(name=ATTEMPT)


def make_attempt(llm: BaseChatModel | None = None, sandbox: Sandbox | None = None) -> Runnable:
    """The parent's `attempt` node: the attempt's subgraph run on the run's state, its progress
    events passed on to the run's stream, its AttemptOutcome returned as the node's update.
    The attempt starts from the run's fields; its own (AttemptState's) start at their defaults:
    nothing written, tested or chosen yet."""
    attempt = build_attempt(llm, sandbox)

    def run(state: State, config: RunnableConfig) -> AttemptOutcome:
        emit, values = get_stream_writer(), {}
        for mode, chunk in attempt.stream(_input(state, _saved(attempt, config)), stream_mode=["custom", "values"]):
            values = _passed_on(emit, mode, chunk, values)
        return _outcome(values)

    async def arun(state: State, config: RunnableConfig) -> AttemptOutcome:
        emit, values = get_stream_writer(), {}
        saved = await _asaved(attempt, config)
        async for mode, chunk in attempt.astream(_input(state, saved), stream_mode=["custom", "values"]):
            values = _passed_on(emit, mode, chunk, values)
        return _outcome(values)

    return RunnableLambda(run, afunc=arun, name=ATTEMPT)


def _input(state: State, saved: bool) -> dict | Command:
    """The attempt's input: the run's fields; or, when the attempt goes on from its checkpoint
    (a run cut short in it, resumed), the run's deadline as the run holds it now. The run's
    time is a budget counted from each start: a resumed run's deadline is set afresh
    (runner.py), and the attempt it was cut in must not keep the old one, which has passed."""
    return Command(update={"deadline": state.deadline}) if saved else fields_of(state)


def _saved(attempt: CompiledStateGraph, config: RunnableConfig) -> bool:
    """Whether the attempt has a checkpoint to go on from (none without a checkpointer)."""
    try:
        return bool(attempt.get_state(config).values)
    except ValueError:  # no checkpointer
        return False


async def _asaved(attempt: CompiledStateGraph, config: RunnableConfig) -> bool:
    try:
        return bool((await attempt.aget_state(config)).values)
    except ValueError:  # no checkpointer
        return False


def _passed_on(emit: Any, mode: str, chunk: Any, values: dict) -> dict:
    """A progress event is emitted again on the run's stream; the latest values are kept."""
    if mode == "custom":
        emit(chunk)
        return values
    return chunk


def _outcome(values: dict) -> AttemptOutcome:
    # The stream's values are the whole AttemptState: only the outcome goes back to the run
    # (the run's appended memory, `reflections`, would otherwise be added twice).
    return AttemptOutcome(**{key: values[key] for key in OUTCOME_KEYS if key in values})  # type: ignore[typeddict-item]
