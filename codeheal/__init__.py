"""codeheal: a self-healing code generation loop (actor, evaluator, reflector) in LangGraph.

Everything is imported on first use, so that `codeheal --help` and `import codeheal` stay
fast: `codeheal.graph` compiles the graph the first time it is read."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

    from codeheal.batch import BatchItem, solve_many
    from codeheal.checkpointers import open_async_checkpointer, open_checkpointer
    from codeheal.context import Context, Policy, resolve, settings_of
    from codeheal.evaluation.examples import ExampleSource, example_checks
    from codeheal.judge import CallResults, acall_results, aevaluate, evaluate
    from codeheal.llm.weights import lasting_name
    from codeheal.loop.builder import build_graph
    from codeheal.rules import best_attempt
    from codeheal.prompting.model_call import breakdown
    from codeheal.state import Breakdown, Feedback

    graph: CompiledStateGraph

_EXPORTS = {
    "BatchItem": "codeheal.batch",
    "solve_many": "codeheal.batch",
    "open_async_checkpointer": "codeheal.checkpointers",
    "open_checkpointer": "codeheal.checkpointers",
    "Context": "codeheal.context",
    "Policy": "codeheal.context",
    "resolve": "codeheal.context",
    "settings_of": "codeheal.context",
    "example_checks": "codeheal.evaluation.examples",
    "ExampleSource": "codeheal.evaluation.examples",
    "evaluate": "codeheal.judge",
    "aevaluate": "codeheal.judge",
    "acall_results": "codeheal.judge",
    "CallResults": "codeheal.judge",
    "Feedback": "codeheal.state",
    "Breakdown": "codeheal.state",
    "breakdown": "codeheal.prompting.model_call",
    "best_attempt": "codeheal.rules",
    "lasting_name": "codeheal.llm.weights",
    "build_graph": "codeheal.loop.builder",
}

__all__ = [*sorted(_EXPORTS), "graph"]


def __getattr__(name: str) -> Any:
    if name == "graph":
        from codeheal.loop.builder import build_graph

        compiled = build_graph().compile(name="codeheal")
        globals()["graph"] = compiled  # compiled once
        return compiled
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
