"""The attempt's step between drawing candidates and testing them: each candidate prepared once
by the run's form (Form.prepare: its key, its size, in the project form its change as applied),
de-duplicated by key, those tried before left out, in the order drawn, and kept in state
(`prepared`), so that the routers and the evaluator only read them. A retry whose every reply
repeats code tried before goes back to the actor to be drawn once more, hotter (rules.redraws);
the model's draw is announced (`candidates_written`) once it is final."""

from __future__ import annotations

from collections import Counter

from codeheal.context import current_context
from codeheal.forms.choice import form_of
from codeheal.rules import redraws
from codeheal.progress import CandidatesWritten, emit
from codeheal.prompting.model_call import total_usage
from codeheal.state import AttemptState, Candidate, Prepared, PreparedCandidate, State

PREPARE_CANDIDATES = "prepare_candidates"


def prepare_candidates(state: AttemptState) -> dict:
    """The prepare_candidates node: the candidates the actor drew, prepared to test; or, when
    every reply of a retry repeats code tried before (the first time only), the prepared
    repeats kept (`repeats`) and nothing to test: the actor draws once more."""
    known = dict(zip(dict.fromkeys(state.candidates), state.repeats, strict=False))
    prepared = known | prepared_of(state, [code for code in state.candidates if code not in known])
    form = form_of(state.form)
    if (not state.repeats and state.usages and form.is_retry(state)
            and redraws(form.policy_for(current_context().policy)) and repeats_tried(state, prepared)):
        # Its test would end the same way: drawn once more, as the next retry would be.
        return {"repeats": list(prepared.values())}
    update: dict = {"prepared": to_test(state, state.candidates, prepared)}
    if state.usages:  # the model drew them (the screen's were announced as it wrote them)
        generation = total_usage(state.usages)
        emit(CandidatesWritten(
            kind="candidates_written", attempt=state.attempts + 1, seconds=generation["seconds"],
            prompt_tokens=generation["prompt_tokens"], completion_tokens=generation["completion_tokens"],
        ))
        update |= {"generation": generation, "written": state.written + 1}
    return update


def prepared_of(state: State, candidates: list[Candidate]) -> dict[Candidate, Prepared]:
    """Each distinct text among `candidates` prepared once by the run's form (Form.prepare)."""
    form = form_of(state.form)
    return {code: form.prepare(state, code) for code in dict.fromkeys(candidates)}


def repeats_tried(state: State, prepared: dict[Candidate, Prepared]) -> bool:
    """Whether every candidate was tested before in this run (by its Prepared.key)."""
    tried = {t["key"] for t in state.tried}
    return bool(prepared) and all(p["key"] in tried for p in prepared.values())


def to_test(state: State, candidates: list[Candidate], prepared: dict[Candidate, Prepared] | None = None,
            *, choosing: bool = False) -> list[PreparedCandidate]:
    """The attempt's candidates to test (`prepared` in state), from the `candidates` a node
    wrote: one per key (Prepared.key), in the order drawn, each with how many drawn share it.
    One tried earlier in this run is left out when there is anything new: it would end the
    same way, unless `choosing` among them by generated inputs (the selector: the attempt that
    passed before runs too). `prepared`: what is already prepared of them (the rest is
    prepared here)."""
    drawn = list(candidates) or [""]
    known = {**(prepared or {})}
    known |= prepared_of(state, [code for code in drawn if code not in known])
    copies = Counter(known[code]["key"] for code in drawn)
    distinct: dict[str, tuple[Candidate, Prepared]] = {}
    for code in drawn:
        distinct.setdefault(known[code]["key"], (code, known[code]))
    found = list(distinct.values())
    if not choosing:
        tried = {t["key"] for t in state.tried}
        found = [(code, p) for code, p in found if p["key"] not in tried] or found[:1]
    return [PreparedCandidate(**p, index=index, code=code, copies=copies[p["key"]])
            for index, (code, p) in enumerate(found)]
