"""Where the loop goes next: pure functions of state, typed so Studio draws every edge.
The rules themselves live in `policy`."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from codeheal import policy
from codeheal.context import Context, resolve_context
from codeheal.forms.choice import form_of
from codeheal.nodes.candidate_test import candidate_sends
from codeheal.state import State


def route_start(state: State) -> Literal["actor"] | list[Send]:
    """Starting code supplied with the input is tested before any model call."""
    return candidate_sends(state) if state.get("prepared") else "actor"


def route_after_evaluation(
    state: State, runtime: Runtime[Context] | None = None
) -> Literal["reflector", "actor", "review", "selector", "finish"] | list[Send]:
    """The attempt's next batch of candidates while the evaluator left `tested` (testing goes
    on; choosing by generated inputs, `probes` set, it leaves them only for the selector's second
    round: selection.wants_more_samples), else see `policy.after_evaluation`."""
    if state.get("tested"):
        return "selector" if state.get("probes") else candidate_sends(state)
    context = resolve_context(runtime.context if runtime else None)
    form = form_of(state)
    return policy.after_evaluation(state, context, form.policy_for(context.policy),
                                   screens=bool(state.get("screen")))


def route_after_actor(state: State) -> Literal["finish"] | list[Send]:
    """The actor's candidates are tested, each in its own parallel task, unless the budget
    stopped it from writing any."""
    return "finish" if policy.after_model_step(state) == "finish" else candidate_sends(state)


def route_after_selector(state: State) -> Literal["finish", "evaluator"] | list[Send]:
    """The candidates to choose from are tested on the generated inputs, unless the model
    wrote none that can run (or the budget stopped it); a second round the budget could not
    pay for goes straight to the choice among those tested."""
    if policy.after_model_step(state) == "finish" or not state.get("probes"):
        return "finish"
    return candidate_sends(state) or "evaluator"


def route_after_reflector(state: State) -> Literal["actor", "finish"]:
    """The next attempt follows the lesson, unless the budget stopped the reflector."""
    return "finish" if policy.after_model_step(state) == "finish" else "actor"


def route_after_review(state: State) -> Literal["actor", "finish"]:
    """A reviewer's retry goes back to the actor; accept and abort finish the run."""
    return "actor" if state.get("status") == "running" else "finish"
