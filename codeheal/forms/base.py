"""The form of a run as one strategy object. A run is of one form, chosen once by prepare and
kept in state by name; the nodes ask the form and never which form it is."""

from __future__ import annotations

import difflib
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from langchain_core.messages import BaseMessage

from codeheal.context import Context, Policy
from codeheal.llm.factory import MAX_TOKENS
from codeheal.policy import sampling_temperature
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
    candidate, how a candidate is tested, and what the run's outcome adds."""

    name: ClassVar[FormName]
    run_fields: ClassVar[tuple[str, ...]]
    """What testing a candidate needs from the run's state (a Send task sees only its input)."""
    task_keys: ClassVar[tuple[str, ...]]
    """The input keys that make two runs the same task."""
    output_keys: ClassVar[tuple[str, ...]]
    """The output keys a run of this form has besides the common ones."""

    def policy_for(self, policy: Policy) -> Policy:
        """The run's policy as this form can carry it out: the retry rules the policy
        functions are given (policy.after_evaluation and the rest). By default the policy as named."""
        return policy

    @abstractmethod
    def start(self, state: State, context: Context) -> dict:
        """The form's fields of a fresh run, its first candidates among them. Raises
        InputError for input no model call could fix."""

    @abstractmethod
    def run_started(self, run: dict) -> RunStarted:
        """The progress event of a run whose input and `start` fields are `run`: what happens first."""

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

    def draws(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> list[Draw]:
        """The model calls that write the next candidates, in the order their candidates are
        tested (the earlier wins among equals). By default one: the actor's prompt, one reply
        on the first attempt, Policy.retry_samples on a retry (policy.sampling_temperature)."""
        messages, stop = self.actor_prompt(state, context, fresh=fresh, prefill=prefill, counter=counter)
        retry = self.is_retry(state)
        rules = self.policy_for(context.policy)
        return [Draw(
            messages, stop, samples=rules.retry_samples if retry else 1,
            temperature=sampling_temperature(state, rules, retry=retry), candidate=self.candidate,
        )]

    def screens_next(self, state: State, context: Context) -> bool:
        """Whether the next attempt tests candidates written without a model (`screen`): then
        no lesson is written before it. By default never."""
        return False

    def screen(self, state: State, context: Context) -> list[Candidate]:
        """Candidates to test before the model writes any (once per run, as an attempt of its
        own: see policy.attempt_limit); by default none."""
        return []

    @abstractmethod
    def candidate(self, reply: str) -> str:
        """The candidate a model reply gives (a reply without code still gives one, which
        fails saying why)."""

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

    def attempt_diff(self, attempt: Attempt, previous: Attempt | None) -> str:
        """An attempt's change as a unified diff (`-v`): by default its code against the
        previous attempt's."""
        return "".join(difflib.unified_diff(
            (previous["code"] if previous else "").splitlines(keepends=True), attempt["code"].splitlines(keepends=True),
            "previous attempt", f"attempt {attempt['attempt']}",
        ))

    def attempt_fields(self, state: State, best: TestedCandidate) -> dict:
        """The form's own fields of the attempt record, from the chosen candidate."""
        return {}

    def run_update(self, tested: list[TestedCandidate]) -> dict:
        """What an attempt's tested candidates change in the run's state besides the attempt."""
        return {}

    def outcome(self, state: State, best: Attempt | None, status: Status) -> dict:
        """What the run's end adds to its output, and clears of its input on the thread."""
        return {}

    def end_note(self, state: State, best: Attempt | None, status: Status) -> str | None:
        """A line for the user beside the run's final status, when its end has a cause the
        status does not say, or a pass rests on little (RunStatus.note)."""
        return None
