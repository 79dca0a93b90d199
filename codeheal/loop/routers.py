"""Where the loop goes next: pure functions of state, typed so Studio draws every edge.
Within an attempt (loop/attempt.py): from its start, the actor, prepare_candidates, the
evaluator and the selector;
in the run around it (loop/builder.py): after an attempt, the reflector and the review. The
rules themselves live in `rules`."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from codeheal import rules
from codeheal.context import Context, resolve_context
from codeheal.forms.choice import form_of
from codeheal.nodes.candidate_test import candidate_sends
from codeheal.state import AttemptState, State

End = Literal["__end__"]
"""The attempt's end (langgraph.graph.END): the run goes on in the parent graph."""


def route_start(state: AttemptState) -> Literal["actor"] | list[Send]:
    """An attempt's candidates written before it (the starting code, the project as it is)
    are tested before any model call; otherwise the actor draws them."""
    return candidate_sends(state) if state.prepared else "actor"


def route_after_actor(state: AttemptState) -> Literal["prepare_candidates"] | End:
    """The actor's candidates are prepared to test, unless the budget stopped it from writing
    any (the attempt ends; the run finishes)."""
    return "__end__" if rules.after_model_step(state) == "finish" else "prepare_candidates"


def route_after_preparing(state: AttemptState) -> Literal["actor"] | list[Send]:
    """The prepared candidates are tested, each in its own parallel task; none prepared to
    test: every reply repeated code tried before, and the actor draws once more."""
    return candidate_sends(state) if state.prepared else "actor"


def route_after_evaluation(
    state: AttemptState, runtime: Runtime[Context] | None = None
) -> Literal["selector"] | End | list[Send]:
    """The attempt's next batch of candidates while the evaluator left `tested` (testing goes
    on; choosing by generated inputs, `generated_inputs` set, it leaves them only for the selector's second
    round: selection.wants_more_samples). Once recorded, an attempt that passed chooses by
    execution when the policy asks (rules.wants_selection); otherwise the attempt ends."""
    if state.tested:
        return "selector" if state.generated_inputs else candidate_sends(state)
    feedback = state.feedback
    if feedback and feedback["passed"] and rules.wants_selection(state, resolve_context(runtime.context if runtime else None)):
        return "selector"
    return "__end__"


def route_after_selector(state: AttemptState) -> Literal["evaluator"] | End | list[Send]:
    """The candidates to choose from are tested on the generated inputs, unless the model
    wrote none that can run (or the budget stopped it): the attempt ends as it was recorded; a
    second round the budget could not pay for goes straight to the choice among those tested."""
    if rules.after_model_step(state) == "finish" or not state.generated_inputs:
        return "__end__"
    return candidate_sends(state) or "evaluator"


NEXT = {"actor": "attempt", "selector": "finish"}
"""rules.after_evaluation's decision as the run's node: the actor's is the next attempt's; a
passing attempt's choice by execution was made (or could not be) inside the attempt."""


def route_after_attempt(
    state: State, runtime: Runtime[Context] | None = None
) -> Literal["reflector", "attempt", "review", "finish"]:
    """After an attempt: the run finishes when a step could not afford its model call, else see
    `rules.after_evaluation`."""
    if rules.after_model_step(state) == "finish":
        return "finish"
    context = resolve_context(runtime.context if runtime else None)
    decision = rules.after_evaluation(state, context, form_of(state.form).policy_for(context.policy),
                                       screens=bool(state.screen))
    return NEXT.get(decision, decision)  # type: ignore[return-value]


def route_after_reflector(state: State) -> Literal["attempt", "finish"]:
    """The next attempt follows the reflection, unless the budget stopped the reflector."""
    return "finish" if rules.after_model_step(state) == "finish" else "attempt"


def route_after_review(state: State) -> Literal["attempt", "finish"]:
    """A reviewer's retry is the next attempt; accept and abort finish the run."""
    return "attempt" if state.status == "running" else "finish"
