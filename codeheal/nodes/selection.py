"""Choosing by execution when an attempt passes the user's tests (CodeT's execution agreement,
cut to what a small model can do): more candidates are drawn from the first attempt's prompt,
the model writes inputs of its own (generated inputs: calls of the tested function, no
expected values, which small models predict badly), every candidate runs on the user's tests
and on those inputs, and the candidate kept is the one whose outputs the most candidates
share. Samples are drawn in two rounds: when the first round's agree with the passing attempt
on every input, the choice stops there.

Generated inputs only ever choose between candidates that pass the user's tests: the verdict
("passed") is the user's tests' alone, and history shows the choice apart."""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from codeheal.context import Context, current_context
from codeheal.errors import DeadlineReached, PromptTooLargeError
from codeheal.evaluation.checks import added_check_names, check_names, parse_tests
from codeheal.evaluation.examples import user_checks
from codeheal.forms.choice import form_of
from codeheal.llm import chat_model
from codeheal.llm.factory import MAX_TOKENS, completions_per_request, token_counter
from codeheal.nodes.actor import started, uses_prefill
from codeheal.nodes.prepare_candidates import to_test
from codeheal.rules import attempt_limit, call_timeout, completion_allowance, model_context, out_of_time
from codeheal.progress import emit
from codeheal.prompting.extraction import extract_code
from codeheal.prompting.model_call import charged, sample_seed, total_usage
from codeheal.prompting.generated_inputs import inputs_messages
from codeheal.state import Feedback, Selection, State, TestedCandidate
from codeheal.steps import ModelCall, Steps
from codeheal.syntax import parse_code

INPUTS_WANTED = 6
PROBE_MAX_TOKENS = 300
SAMPLE_TOKENS_WANTED = 200
"""A candidate allowed fewer completion tokens than this would be cut short (HumanEval's
median body is about 90 tokens, its long ones 200)."""
FIRST_ROUND = 2
"""Samples the first round draws; the rest of ModuleSettings.select_samples only when the
candidates disagree."""
OUTPUT_PROBE = " == ..."
"""What a generated input's check compares the output with: Ellipsis, which no ordinary output
equals, so the check fails and its report carries the output (`actual`) to compare."""


def make_selector(llm: BaseChatModel | None = None) -> Callable[[State], Steps[dict]]:
    """The selector node's body: the generated inputs and a round of more candidates, or, when
    the first round's candidates disagree, the second round. `llm` overrides the model named
    in the run's Context."""

    def selector(state: State) -> Steps[dict]:
        # The model that wrote the passing attempt draws the candidates to choose from.
        context = model_context(current_context(), state.model)
        entry_point = state.probe_function
        assert entry_point, "rules.wants_selection checks it"
        prefill = uses_prefill(context, llm)
        counter = token_counter(llm or chat_model(context, context.policy.temperature))
        first_prompt, stop = form_of(state.form).actor_prompt(state, context, fresh=True, prefill=prefill, counter=counter)
        second_round = bool(state.generated_inputs)
        # The second round reuses the first's inputs: it writes no prompt for generated inputs.
        inputs_prompt = [] if second_round else inputs_messages(
            task=state.task, entry_point=entry_point, count=INPUTS_WANTED, prefill=prefill)
        per_call = 1 if llm else completions_per_request(context)
        drawn = len(state.candidates) - 1 if second_round else 0
        samples, allowance = affordable_samples(
            state, context, counter.prompt_tokens(first_prompt), counter.prompt_tokens(inputs_prompt) if inputs_prompt else 0,
            per_call, wanted=context.module.select_samples - drawn if second_round else min(FIRST_ROUND, context.module.select_samples),
            already=state.generation["tokens"] if second_round else 0,
        )
        if not samples or out_of_time(state):  # the budget or the time cannot pay for a (further) choice: what is drawn stands
            return {"select_round": 2} if second_round else {"generated_inputs": None}
        usages = []
        attempt = state.attempts + 1  # the choice is an attempt of its own
        if not second_round:
            emit(started(attempt, attempt_limit(state, context), state))
            try:
                ((inputs_reply, inputs_usage),) = yield ModelCall(
                    llm or chat_model(context, context.policy.temperature), inputs_prompt, stop=stop,
                    max_tokens=min(allowance, PROBE_MAX_TOKENS) if context.max_tokens is not None else PROBE_MAX_TOKENS,
                    seed=sample_seed(context.policy.seed, attempt, 0), timeout_s=call_timeout(state), attempt=attempt,
                )
            except (PromptTooLargeError, DeadlineReached):  # over the model's context or the time: the passing attempt stands
                return {"generated_inputs": None}
            generated_inputs = parse_generated_inputs(inputs_reply, entry_point)
            if not generated_inputs:  # nothing to choose by: the passing attempt stands, and pays for the try
                *earlier, last = state.history
                return {"history": [*earlier, charged(last, inputs_usage)], "generated_inputs": None}
            usages.append(inputs_usage)
        try:
            replies = yield ModelCall(
                llm or chat_model(context, context.policy.retry_temperature), first_prompt, stop=stop, samples=samples,
                per_call=per_call, max_tokens=allowance if context.max_tokens is not None else None,
                seed=sample_seed(context.policy.seed, attempt, drawn), timeout_s=call_timeout(state), attempt=attempt,
            )
        except (PromptTooLargeError, DeadlineReached):  # over the model's context or the time: what is drawn stands
            return {"select_round": 2} if second_round else {"generated_inputs": None}
        drawn_code = [extract_code(reply) or "" for reply, _ in replies]
        usages += [usage for _, usage in replies]
        if second_round:
            candidates = [*state.candidates, *drawn_code]
            return {"candidates": candidates, "prepared": to_test(state, candidates, choosing=True),
                    "generation": total_usage([state.generation, *usages]), "select_round": 2}
        candidates = [state.history[-1]["code"], *drawn_code]
        inputs_text = "\n".join(generated_inputs) + "\n"
        return {
            "candidates": candidates,
            "prepared": to_test(state, candidates, choosing=True),
            "generated_inputs": inputs_text,
            "generation": total_usage(usages),
            "select_round": 1,
        }

    return selector


def affordable_samples(
    state: State, context: Context, prompt_tokens: int, probe_prompt_tokens: int, per_call: int,
    *, wanted: int | None = None, already: int = 0,
) -> tuple[int, int]:
    """How many extra candidates (at most `wanted`, ModuleSettings.select_samples by default,
    at least 1) the run's budget can pay for next to the generated inputs' call (none when
    `probe_prompt_tokens` is 0: they are written), each allowed SAMPLE_TOKENS_WANTED completion
    tokens, after `already` tokens this choice spent; and the completion tokens each reply may
    use; (0, 0) when not even 1 fits."""
    probe_call = 1 if probe_prompt_tokens else 0
    for samples in range(context.module.select_samples if wanted is None else wanted, 0, -1):
        requests = -(-samples // per_call)
        # The samples' requests and the generated inputs' one, as requests + 1 of the mean size.
        allowance = completion_allowance(
            state, context, prompt_tokens=(prompt_tokens * requests + probe_prompt_tokens) // (requests + probe_call),
            requests=requests + probe_call, samples=samples + probe_call, wanted=MAX_TOKENS, already=already,
        )
        if allowance >= SAMPLE_TOKENS_WANTED or (context.max_tokens is None and allowance):
            return samples, allowance
    return 0, 0


def parse_generated_inputs(reply: str, entry_point: str, limit: int = INPUTS_WANTED + 2) -> list[str]:
    """The reply's generated inputs that can be run as they are, each once, as checks whose
    failure reports the output (OUTPUT_PROBE): a line that is a call of `entry_point` with
    literal arguments (an `assert call == ...` or `print(call)` line gives its call)."""
    calls: dict[str, str] = {}
    for line in reply.splitlines():
        try:
            body = parse_code(line.strip()).body
        except SyntaxError:
            continue
        call = _literal_call(body[0], entry_point) if len(body) == 1 else None
        if call is not None:
            text = ast.unparse(call)
            calls.setdefault(text, f"assert {text}{OUTPUT_PROBE}")
    return list(calls.values())[:limit]


def _literal_call(statement: ast.stmt, entry_point: str) -> ast.Call | None:
    """The call of `entry_point` with literal arguments a line makes: `f(...)`, `print(f(...))`,
    `assert f(...) == x` or `x = f(...)`; None for anything else."""
    node: ast.AST | None = None
    if isinstance(statement, ast.Expr):
        node = statement.value
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print" and len(node.args) == 1:
            node = node.args[0]
    elif isinstance(statement, ast.Assert) and isinstance(statement.test, ast.Compare):
        node = statement.test.left
    elif isinstance(statement, ast.Assign):
        node = statement.value
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == entry_point):
        return None
    try:
        for value in [*node.args, *(k.value for k in node.keywords)]:
            ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return node


@dataclass(frozen=True)
class Agreement:
    """The chosen candidate and why: its index, the record history keeps, and whether every
    candidate tested passed the user's tests and agreed with it."""

    index: int
    selection: Selection
    unanimous: bool


def choose_by_agreement(tested: list[TestedCandidate], tests: str, generated_inputs: str,
                        copies: Mapping[str, int] | None = None) -> Agreement:
    """Among the candidates that pass the user's tests, the one in the largest group of
    candidates with the same outputs (or the same exceptions) on the generated inputs, each
    counted as often as it was drawn (`copies`, by its key; once when not given); the earliest
    among equals. Candidate 0, the attempt that passed the user's tests before, is always
    eligible."""
    _, input_names = _names(tests, generated_inputs)
    weight = {t["index"]: (copies or {}).get(t.get("key") or "", 1) for t in tested}
    signatures: dict[int, tuple[str, ...]] = {}
    for candidate in sorted(tested, key=lambda t: t["index"]):
        feedback = candidate["feedback"]
        failed = {f["test"]: f for f in feedback["failures"]}
        if candidate["index"] and (feedback["error"] or failed.keys() - input_names):
            continue
        if feedback["error"]:
            signatures[candidate["index"]] = ("error",)
            continue
        signatures[candidate["index"]] = tuple(
            "..." if name not in failed else f"{failed[name]['exception']}:{failed[name]['actual']}"
            for name in sorted(input_names)
        )
    groups: dict[tuple[str, ...], list[int]] = {}
    for index, signature in signatures.items():
        groups.setdefault(signature, []).append(index)
    votes = {signature: sum(weight[i] for i in members) for signature, members in groups.items()}
    signature = max(groups, key=lambda s: (votes[s], -groups[s][0]))
    return Agreement(groups[signature][0], Selection(
        candidates=sum(weight.values()), eligible=sum(weight[i] for i in signatures),
        generated_inputs=len(input_names), agreeing=votes[signature],
    ), unanimous=votes[signature] == sum(weight.values()))


def drawn_copies(state: State) -> dict[str, int]:
    """How many of the candidates drawn for the choice share each key (Prepared.copies)."""
    return {p["key"]: p["copies"] for p in state.prepared}


def wants_more_samples(state: State, context: Context) -> bool:
    """Choosing by generated inputs (`generated_inputs` set), every candidate of the first round
    is tested, they do not all agree, and ModuleSettings.select_samples leaves samples to draw."""
    tested = state.tested
    if not (state.generated_inputs and tested and state.select_round == 1):
        return False
    copies = drawn_copies(state)
    if len(tested) < len(copies) or len(state.candidates) - 1 >= context.module.select_samples:
        return False
    return not choose_by_agreement(tested, user_checks(state), state.generated_inputs or "", copies).unanimous


def visible_feedback(feedback: Feedback, tests: str, generated_inputs: str) -> Feedback:
    """A candidate's feedback on the user's tests alone: the generated inputs' failures are cut
    out, every other one stays (a hollow pass's findings among them: evaluation/hollow.py)."""
    visible, input_names = _names(tests, generated_inputs)
    failures = [f for f in feedback["failures"] if f["test"] not in input_names]
    total = len(visible)
    return {**feedback, "failures": failures, "total": total,
            "passed_count": total - sum(f["test"] in visible for f in failures),
            "passed": not failures and not feedback["error"]}


def _names(tests: str, generated_inputs: str) -> tuple[frozenset[str], frozenset[str]]:
    added = added_check_names(tests, generated_inputs) if generated_inputs else frozenset()
    return check_names(parse_tests(tests)), added
