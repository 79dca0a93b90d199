"""Selection when the tests are weak (CodeT's dual execution agreement, cut to what a small
model can do): when an attempt passes tests of fewer than WEAK_BELOW checks, more candidates
are drawn from the first attempt's prompt, the model writes checks of its own (generated
checks), every candidate runs on the user's tests and the generated checks together, and the
candidate kept is the one most others agree with on the generated checks' results, weighted
by how many of them it passes.

Generated checks only ever choose between candidates that pass the user's tests: the verdict
("passed") is the user's tests' alone, and history shows the generated checks apart."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from codeheal.context import Context, current_context
from codeheal.evaluation.checks import check_names, parse_tests
from codeheal.forms.choice import form_of
from codeheal.llm import chat_model
from codeheal.llm.factory import MAX_TOKENS, completions_per_request, token_counter
from codeheal.nodes.actor import uses_prefill
from codeheal.policy import attempt_limit, completion_allowance, model_context
from codeheal.progress import AttemptStarted, emit
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.model_call import charged, total_usage
from codeheal.prompting.probes import probe_messages
from codeheal.state import Feedback, Selection, State, TestedCandidate
from codeheal.steps import ModelCall, Steps

PROBES_WANTED = 6
PROBE_MAX_TOKENS = 300
SAMPLE_TOKENS_WANTED = 200
"""A candidate allowed fewer completion tokens than this would be cut short (HumanEval's
median body is about 90 tokens, its long ones 200)."""


def make_selector(llm: BaseChatModel | None = None) -> Callable[[State], Steps[dict]]:
    """The selector node's body: more candidates and the generated checks. `llm` overrides
    the model named in the run's Context."""

    def selector(state: State) -> Steps[dict]:
        # The model that wrote the passing attempt draws the candidates to choose from.
        context = model_context(current_context(), state.get("model"))
        entry_point = state.get("probe_function")
        assert entry_point, "policy.wants_selection checks it"
        prefill = uses_prefill(context, llm)
        counter = token_counter(llm or chat_model(context, context.policy.temperature))
        first_prompt, stop = form_of(state).actor_prompt(state, context, fresh=True, prefill=prefill, counter=counter)
        probe_prompt = probe_messages(task=state["task"], entry_point=entry_point, count=PROBES_WANTED, prefill=prefill)
        per_call = 1 if llm else completions_per_request(context)
        samples, allowance = affordable_samples(
            state, context, counter.prompt_tokens(first_prompt), counter.prompt_tokens(probe_prompt), per_call,
        )
        if not samples:  # the budget cannot pay for a choice: the passing attempt stands
            return {"probes": None}
        emit(AttemptStarted(kind="attempt_started", attempt=(state.get("attempts") or 0) + 1,
                            max_attempts=attempt_limit(state, context)))
        ((probe_reply, probe_usage),) = yield ModelCall(
            llm or chat_model(context, context.policy.temperature), probe_prompt, stop=stop,
            max_tokens=min(allowance, PROBE_MAX_TOKENS) if context.max_tokens is not None else PROBE_MAX_TOKENS,
        )
        probes = parse_probes(probe_reply, entry_point)
        if not probes:  # nothing to choose by: the passing attempt stands, and pays for the try
            *earlier, last = state["history"]
            return {"history": [*earlier, charged(last, probe_usage)], "probes": None}
        replies = yield ModelCall(
            llm or chat_model(context, context.policy.retry_temperature), first_prompt, stop=stop, samples=samples,
            per_call=per_call, max_tokens=allowance if context.max_tokens is not None else None,
        )
        best = state["history"][-1]["code"]
        return {
            "candidates": [best, *(extract_code(reply) or "" for reply, _ in replies)],
            "probes": "\n".join(probes) + "\n",
            "generation": total_usage([probe_usage, *(usage for _, usage in replies)]),
        }

    return selector


def affordable_samples(
    state: State, context: Context, prompt_tokens: int, probe_prompt_tokens: int, per_call: int
) -> tuple[int, int]:
    """How many extra candidates (at most ModuleSettings.select_samples, at least 2) the run's budget
    can pay for next to the generated checks, each allowed SAMPLE_TOKENS_WANTED completion
    tokens, and the completion tokens each reply may use; (0, 0) when not even 2 fit."""
    for samples in range(context.module.select_samples, 1, -1):
        requests = -(-samples // per_call)
        # The samples' requests and the generated checks' one, as requests + 1 of the mean size.
        allowance = completion_allowance(
            state, context, prompt_tokens=(prompt_tokens * requests + probe_prompt_tokens) // (requests + 1),
            requests=requests + 1, samples=samples + 1, wanted=MAX_TOKENS,
        )
        if allowance >= SAMPLE_TOKENS_WANTED or (context.max_tokens is None and allowance):
            return samples, allowance
    return 0, 0


def parse_probes(reply: str, entry_point: str, limit: int = PROBES_WANTED + 2) -> list[str]:
    """The reply's checks that can be run as they are: `assert entry_point(literals) ==
    literal`, one per line, each input once."""
    probes: dict[str, str] = {}
    for line in reply.splitlines():
        line = line.strip()
        try:
            node = ast.parse(line).body[0] if line.startswith("assert ") else None
        except SyntaxError:
            continue
        if not isinstance(node, ast.Assert) or not _literal_check(node.test, entry_point):
            continue
        call = ast.unparse(node.test.left)  # type: ignore[attr-defined]
        probes.setdefault(call, f"assert {ast.unparse(node.test)}")
    return list(probes.values())[:limit]


def _literal_check(test: ast.expr, entry_point: str) -> bool:
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    call = test.left
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == entry_point):
        return False
    try:
        for value in [*call.args, *(k.value for k in call.keywords), test.comparators[0]]:
            ast.literal_eval(value)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Agreement:
    """The chosen candidate and why: its index, and the record history keeps."""

    index: int
    selection: Selection


def choose_by_agreement(tested: list[TestedCandidate], tests: str, probes: str) -> Agreement:
    """Among the candidates that pass the user's tests, the one in the largest group of
    candidates with the same results on the generated checks, weighted by how many of them
    the group passes (size x (1 + passed)); the earliest among equals. Candidate 0, the
    attempt that passed the user's tests before, is always eligible."""
    visible, probe_names = _names(tests, probes)
    signatures: dict[int, tuple[str, ...]] = {}
    for candidate in sorted(tested, key=lambda t: t["index"]):
        feedback = candidate["feedback"]
        failed = {f["test"]: f for f in feedback["failures"]}
        if candidate["index"] and (feedback["error"] or visible & failed.keys()):
            continue
        if feedback["error"]:
            signatures[candidate["index"]] = ("error",)
            continue
        signatures[candidate["index"]] = tuple(
            "ok" if name not in failed else f"{failed[name]['exception']}:{failed[name]['actual']}"
            for name in sorted(probe_names)
        )
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, signature in signatures.items():
        groups.setdefault(signature, []).append(index)

    def score(signature: tuple[str, ...]) -> tuple[int, int]:
        members = groups[signature]
        return len(members) * (1 + signature.count("ok")), -members[0]

    signature = max(groups, key=score)
    return Agreement(groups[signature][0], Selection(
        candidates=len(tested), eligible=len(signatures), generated_checks=len(probe_names),
        agreeing=len(groups[signature]), generated_passed=signature.count("ok"),
    ))


def visible_feedback(feedback: Feedback, tests: str) -> Feedback:
    """A candidate's feedback on the user's tests alone: the generated checks are cut out."""
    visible, _ = _names(tests, "")
    failures = [f for f in feedback["failures"] if f["test"] in visible]
    total = len(visible)
    return {**feedback, "failures": failures, "total": total, "passed_count": total - len(failures),
            "passed": not failures and not feedback["error"]}


def _names(tests: str, probes: str) -> tuple[frozenset[str], frozenset[str]]:
    visible = check_names(parse_tests(tests))
    combined = check_names(parse_tests(combined_tests(tests, probes))) if probes else visible
    return visible, combined - visible


def combined_tests(tests: str, probes: str) -> str:
    """The user's tests, then the generated checks (their lines after the tests' own)."""
    return tests.rstrip("\n") + "\n" + probes
