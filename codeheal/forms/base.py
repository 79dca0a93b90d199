"""The form of a run as one strategy object. A run is of one form, chosen once by prepare and
kept in state by name; the nodes ask the form and never which form it is.

A form answers ten questions, each asked by one step of the loop::

    form = form_of(state.form)                              # forms/choice.py, by its name
    fields, started = form.start(state, context)            # prepare: input checked, first candidates
    draws = form.draws(state, context, fresh=False, prefill=True, counter=counter)  # actor: model calls
    prepared = form.prepare(state, candidate)               # prepare_candidates: key, size, change
    tested = yield from form.test_steps(sandbox, job, context)  # test_candidate: one candidate judged
    attempt_fields, run_fields = form.record(state, best, tested, context)  # evaluator
    fields, note = form.outcome(state, best_attempt, status)  # finish

and `policy_for` (the policy as the form can carry it out), `is_retry`, `actor_prompt` (also
the selector's) and `reflector_prompt`. Its class attributes say what a candidate's test needs
from state (`run_fields`), what makes two runs the same task (`task_keys`) and its output's
own keys (`output_keys`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from langchain_core.messages import BaseMessage

from codeheal.context import Context, Policy
from codeheal.llm.factory import MAX_TOKENS
from codeheal.progress import RunStarted
from codeheal.sandboxes.base import Sandbox
from codeheal.state import Attempt, Candidate, CandidateJob, FormName, Prepared, State, Status, TestedCandidate
from codeheal.steps import Steps
from codeheal.tokens import TokenCounter


@dataclass(frozen=True)
class Draw:
    """One model call of an attempt: its messages and stop sequences, how many replies to
    draw at which temperature, and how a reply becomes a candidate."""

    messages: list[BaseMessage]
    stop: tuple[str, ...]
    samples: int
    temperature: float
    candidate: Callable[[str], str]
    max_tokens: int = MAX_TOKENS
    """Completion tokens of each reply at most."""


class Form(ABC):
    """What differs between the forms of a run: its input, its prompts, how a reply becomes a
    candidate, how a candidate is prepared and tested, and what an attempt and the run's
    outcome add."""

    name: ClassVar[FormName]
    run_fields: ClassVar[tuple[str, ...]]
    """What testing a candidate needs from the run's state (a Send task sees only its input)."""
    task_keys: ClassVar[tuple[str, ...]]
    """The input keys that make two runs the same task."""
    output_keys: ClassVar[tuple[str, ...]]
    """The output keys a run of this form has besides the common ones."""

    def policy_for(self, policy: Policy) -> Policy:
        """The run's policy as this form can carry it out: the retry rules the policy
        functions are given (rules.after_evaluation and the rest). By default the policy as named."""
        return policy

    @abstractmethod
    def start(self, state: State, context: Context) -> tuple[dict, RunStarted]:
        """The form's fields of a fresh run, its first candidates among them, and the
        `run_started` progress event (what happens first). Raises InputError for input no
        model call could fix."""

    @abstractmethod
    def is_retry(self, state: State) -> bool:
        """Whether the next candidates are a retry (sampled at the retry temperature, as
        Policy.retry_samples of them) rather than the first the model writes for the run."""

    @abstractmethod
    def actor_prompt(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> tuple[list[BaseMessage], tuple[str, ...]]:
        """The actor's messages and the stop sequences of its reply. `fresh`: written from
        the first attempt's prompt; `prefill`: the reply is started for the model; `counter`:
        how the model's tokens are counted, for a form that fits its prompts to the window."""

    @abstractmethod
    def draws(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> list[Draw]:
        """The model calls that write the next candidates, in the order their candidates are
        tested (the earlier wins among equals), each with how its replies become candidates
        (a reply without code still gives one, which fails saying why)."""

    def prepare(self, state: State, candidate: Candidate) -> Prepared:
        """The candidate prepared once, before its test: its key (two candidates with one key
        are one, and a key tried before in the run is not tried again), its size (among
        candidates that pass, the smaller wins) and whatever its test reads of that work (the
        project form: the change as applied). By default the candidate's text, size 0."""
        return Prepared(key=candidate or "", size=0)

    @abstractmethod
    def reflector_prompt(
        self, state: State, context: Context, reply_tokens: int, counter: TokenCounter
    ) -> list[BaseMessage]:
        """The reflector's messages about the latest attempt."""

    @abstractmethod
    def test_steps(self, sandbox: Sandbox, job: CandidateJob, context: Context) -> Steps[TestedCandidate]:
        """One candidate tested: the steps that judge it, and what its test showed."""

    def record(
        self, state: State, best: TestedCandidate, tested: list[TestedCandidate], context: Context
    ) -> tuple[dict, dict]:
        """What an attempt adds, once its candidates are tested and `best` chosen: the form's
        own fields of the attempt record, and what changes in the run's state besides the
        attempt (project form: the record completed once the project as it is was tested, and
        the screen's candidates, `screen`). By default nothing."""
        return {}, {}

    def outcome(self, state: State, best: Attempt | None, status: Status) -> tuple[dict, str | None]:
        """What the run's end adds to its output and clears of its input on the thread, and a
        line for the user beside the final status when the end has a cause the status does not
        say, or a pass rests on little (RunStatus.note). By default nothing."""
        return {}, None
