"""What pays, per model: for each kind of failure (rules.failure_kind), how often each retry
action (the failure shown, a fresh sample) led to progress, kept in LangGraph's store beside
the checkpoints, seeded with priors measured on the embedded models, and a Thompson-sampling
choice between the two actions by it (rules.writes_fresh under feedback_when "by_kind")."""

from __future__ import annotations

import random
from collections.abc import Callable

from langgraph.config import get_store
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

from codeheal.llm.weights import lasting_name
from codeheal.state import Action, Attempt, Route, State

ACTIONS: tuple[Action, ...] = ("shown", "fresh")
NAMESPACE = ("codeheal", "what_pays")
"""The store's namespace; below it one namespace per model name, one item per kind of failure."""

Counts = dict[str, list[float]]
"""Per action: [progress, no progress], a Beta distribution's two parameters less one."""


SHOWN_PRIOR: Counts = {"shown": [3.0, 1.0], "fresh": [1.0, 3.0]}
"""A model without measurements, after a failure that says what the prompt lacked: shown first."""
FRESH_PRIOR: Counts = {"shown": [1.0, 3.0], "fresh": [3.0, 1.0]}
"""A model without measurements, after any other failure: a fresh sample first."""
PRIOR_WEIGHT = 0.25
"""Measured priors are scaled to this share of their problems, so a few runs can overturn them."""
MEASURED: dict[str, dict[str, Counts]] = {
    # HumanEval, all 164, of the 31 problems whose attempt 1 failed its visible tests (mostly
    # wrong values): resample healed 20, raw_error 11 (docs/benchmarks.md).
    "local-1.5b": {"value": {"shown": [11.0, 20.0], "fresh": [20.0, 11.0]}},
    # HumanEval 3-attempt run, tuning slice, 28 first failures: visible pass at attempt 2 after
    # a fresh sample 8, after the raw failure 5.
    "local-0.5b": {"value": {"shown": [5.0, 23.0], "fresh": [8.0, 20.0]}},
}
"""What was measured for the embedded models, per kind of failure: [progress, none] per action."""

_FALLBACK = InMemoryStore()
"""The store of runs whose graph was compiled without one (graph.invoke): this process's memory."""


def prior(model: str, kind: str, shown_kinds: frozenset[str]) -> Counts:
    """The counts a model starts from for a kind of failure: the measured ones (scaled by
    PRIOR_WEIGHT) where there are any, else SHOWN_PRIOR or FRESH_PRIOR by the kind."""
    measured = MEASURED.get(lasting_name(model), {}).get(kind)
    if measured:
        return {a: [1.0 + PRIOR_WEIGHT * n for n in measured[a]] for a in ACTIONS}
    base = SHOWN_PRIOR if kind in shown_kinds else FRESH_PRIOR
    return {a: list(base[a]) for a in ACTIONS}


def model_space(model: str) -> tuple[str, ...]:
    """The store namespace of a model's counts. A namespace label cannot hold a period (the
    store's separator), which model names do ("local-1.5b", "gpt-4.1"): it is escaped, one to
    one, as in a URL. "local" counts under the embedded model it names now (lasting_name)."""
    return (*NAMESPACE, lasting_name(model).replace("%", "%25").replace(".", "%2E"))


def counts(store: BaseStore | None, model: str, kind: str, shown_kinds: frozenset[str]) -> Counts:
    """The prior plus every outcome the store holds for this model and kind."""
    seen = (store or _FALLBACK).get(model_space(model), kind)
    start = prior(model, kind, shown_kinds)
    if seen is None:
        return start
    return {a: [start[a][0] + seen.value[a][0], start[a][1] + seen.value[a][1]] for a in ACTIONS}


def choose(beliefs: Counts, seed: str) -> Action:
    """Thompson sampling: a draw from each action's Beta distribution, the larger wins (ties
    go to showing the failure). Deterministic for a seed."""
    rng = random.Random(seed)
    draws = {a: rng.betavariate(*beliefs[a]) for a in ACTIONS}
    return "shown" if draws["shown"] >= draws["fresh"] else "fresh"


def record(store: BaseStore | None, model: str, route: Route, progressed: bool) -> None:
    """Count one retry's outcome: `progressed` when it passed or passed more checks than the
    attempt before it."""
    target = store or _FALLBACK
    namespace = model_space(model)
    seen = target.get(namespace, route["kind"])
    value = {a: list(seen.value[a]) for a in ACTIONS} if seen else {a: [0.0, 0.0] for a in ACTIONS}
    value[route["action"]][0 if progressed else 1] += 1
    target.put(namespace, route["kind"], value)


def forget(store: BaseStore | None = None) -> None:
    """Drop every outcome kept (tests; a user who changed models under one name)."""
    target = store or _FALLBACK
    for item in target.search(NAMESPACE, limit=10_000):
        target.delete(item.namespace, item.key)


def progressed(history: list[Attempt]) -> bool:
    """The latest attempt passed, or passed more checks than the one before it."""
    last, before = history[-1], history[-2]
    return bool(last.get("passed")) or last["passed_count"] > before["passed_count"]


def settle(state: State, store: BaseStore | None) -> None:
    """Count the outcome of the run's latest routed retry (State.route), once it is evaluated,
    for the model that wrote it."""
    route, history = state.route, state.history
    if route and len(history) >= 2 and history[-1]["attempt"] == route["attempt"]:
        record(store, route["model"], route, progressed(history))


def chooser(store: BaseStore | None, model: str, attempt: int,
            shown_kinds: frozenset[str]) -> tuple[Callable[[str], bool], dict[str, str]]:
    """The choice rules.writes_fresh asks for a kind of failure (show it?), by Thompson
    sampling over what the store holds for `model`, the one that writes the retry, seeded by model, kind, attempt and counts; and
    the record it fills with the kind it was asked about (empty when it was not asked)."""
    asked: dict[str, str] = {}

    def shows(kind: str) -> bool:
        beliefs = counts(store, model, kind, shown_kinds)
        asked["kind"] = kind
        return choose(beliefs, f"{model}|{kind}|{attempt}|{sorted(beliefs.items())}") == "shown"

    return shows, asked


def run_store() -> BaseStore | None:
    """The store the running graph was compiled with (None: this process's own memory)."""
    try:
        return get_store()
    except RuntimeError:  # called outside a graph run
        return None
