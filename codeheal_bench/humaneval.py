"""The HumanEval benchmark (and MBPP's, the same run on other problems: mbpp.py): the policy
presets (Context.policy) on the same problems, model and token budget. A condition is a preset,
run exactly as a user who names it gets it:

- one_shot: one greedy attempt.
- resample: later attempts are independent samples from the first attempt's prompt (no
  feedback at all); the visible tests choose, exactly as in the healing conditions.
- raw_error: later attempts see the failed checks, no reflector.
- self_heal: failure, reflections, fresh start when stuck.
- sample_first: fresh samples first, two per retry at rising temperature, a failure shown
  only when it is informative, stop on a repeat.
- adaptive: each retry routed by its failure's kind, shown it or a fresh sample as what pays
  for the model says (codeheal/learning.py). What it learns is kept in OUT/what_pays.sqlite
  (LangGraph's store), so a resumed run goes on from it.

Visible tests (the prompt's own examples; MBPP's first assert) drive the loop; HumanEval's
`check` (all of MBPP's asserts) only scores the final code. Every setting but the preset's own
is the library's default (what a user gets).
The conditions run one after another, each with K problems at once. The first attempt is the
same model call in every condition (same prompt, same temperature 0, same model), so it is made
once, by one_shot; the others start from that code: the graph re-tests it as their attempt 1.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import LLMResult
from langgraph.graph.state import CompiledStateGraph
from langgraph.store.sqlite import SqliteStore
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from codeheal import Context, Feedback, best_attempt, build_graph, settings_of
from codeheal.errors import CodehealError, ConfigError
from codeheal.llm import chat_model
from codeheal_bench.config import RunConfig
from codeheal_bench.hidden import HiddenVerdict, hidden_verdict
from codeheal_bench.humaneval_records import (
    CONDITIONS,
    TIMINGS,
    AttemptKind,
    AttemptRecord,
    Condition,
    ProblemRecord,
)
from codeheal_bench.humaneval_report import humaneval_report
from codeheal_bench.mbpp import load_mbpp
from codeheal_bench.problems import Problem, Slice, load_problems, stretch
from codeheal_bench.records import Records
from codeheal_bench.report import write_report

Suite = Literal["humaneval", "mbpp"]
STORE_FILE = "what_pays.sqlite"
"""The graph's store in the results directory: what the adaptive condition learned, per model
and kind of failure; a resumed run opens it again."""
SLOTS_ENV = "CODEHEAL_LOCAL_SLOTS"
"""The embedded server's parallel slots (codeheal's own setting, docs/models.md): K problems at
once want K slots; the bench reads it for the report and never sets it."""
EMBEDDED = ("local-0.5b", "local-1.5b")
"""The embedded models by the names that stay with them (`codeheal.lasting_name`)."""
TASK_TEMPLATE = (
    "Complete the Python function `{entry_point}` below so that it does what its docstring "
    "says. Reply with the whole module: keep the imports and any helper functions shown, and "
    "implement `{entry_point}` with the same signature.\n\n```python\n{prompt}\n```"
)


@dataclass(frozen=True)
class BenchConfig(RunConfig):
    """One HumanEval invocation."""

    max_attempts: int = 3
    concurrency: int = 1
    limit: int | None = None
    skip: int = 0
    """Problems of the slice passed over before the first `limit`: a later stretch, on which no
    choice was made (MBPP's ids 91 and up with --skip 80)."""
    retry_samples: int | None = None
    """None: the library's default."""
    select_samples: int | None = None
    """Context.module.select_samples of every condition; None: the library's default."""
    hedge: bool | None = None
    """Policy.hedge of the conditions asked for but one_shot; None: each preset's own."""
    max_tokens: int | None = None
    """Token budget of every run, all conditions alike; None: none."""
    slice: Slice = "all"
    """"tuning" (even task ids: where defaults are chosen), "report" (odd ones), or all."""
    max_checks: int | None = None
    """Only the problems whose visible tests hold at most this many checks (0: none mined from
    the prompt, only `callable`); None: every problem. Chosen from the prompts alone."""
    conditions: tuple[Condition, ...] = CONDITIONS
    """The presets to run; one_shot always runs (its attempt 1 is every other's)."""
    suite: Suite = "humaneval"
    """The problems: HumanEval's (problems.py) or MBPP's test split (mbpp.py); the results are
    OUT/SUITE.jsonl, .json, .md and .png."""
    data: Path | None = None
    """MBPP's data file; None: $CODEHEAL_MBPP_FILE."""
    report_only: bool = False
    """Run nothing: write the report of the records already in OUT (a condition counts the
    problems it finished)."""
    first_check_only: bool = False
    """The loop's tests are each problem's first visible check alone (one assert, as MBPP's);
    the prompt's other examples are left to the task text (Context.module.task_examples)."""
    task_examples: bool | None = None
    """Context.module.task_examples of every condition; None: the library's default."""


def condition_context(condition: Condition, config: BenchConfig) -> Context:
    """The Context of one condition: its policy preset, the library's other defaults, and the
    benchmark's model, budget and caps (one_shot keeps its own cap of one attempt)."""
    return config.context(
        policy=condition,
        temperature=0.0,
        max_attempts=None if condition == "one_shot" else config.max_attempts,
        retry_samples=config.retry_samples,
        select_samples=None if condition == "one_shot" else config.select_samples,  # one attempt: no choice
        hedge=config.hedge if condition in config.conditions and condition != "one_shot" else None,
        max_tokens=config.max_tokens,
        task_examples=config.task_examples,
    )


def task_text(problem: Problem) -> str:
    """The task the loop is given: the problem's own, else the HumanEval prompt as code to complete."""
    return problem.task or TASK_TEMPLATE.format(entry_point=problem.entry_point, prompt=problem.prompt.strip("\n"))


def load_suite(suite: Suite, data: Path | None = None, part: Slice = "all") -> list[Problem]:
    """A suite's problems in order, all or one slice; `data`: MBPP's file (else $CODEHEAL_MBPP_FILE)."""
    return load_mbpp(data, None, part) if suite == "mbpp" else load_problems(None, part)


def chosen_problems(config: BenchConfig) -> list[Problem]:
    """The problems a run covers: the slice, past the first `skip`, the first `limit`, those with
    at most `max_checks`; with `first_check_only`, each with its first visible check alone."""
    problems = stretch(load_suite(config.suite, config.data, config.slice), config.limit, config.skip)
    if config.max_checks is not None:
        problems = [problem for problem in problems if problem.visible_count <= config.max_checks]
    if config.first_check_only:
        problems = [replace(p, visible_tests=p.visible_tests.splitlines()[0] + "\n", visible_count=min(p.visible_count, 1))
                    for p in problems]
    return problems


def run_benchmark(config: BenchConfig, console: Console) -> dict:
    """Run every condition on the selected problems (skipping those already recorded in
    the out directory), then write the JSON summary, the Markdown report and the plot.
    Returns the summary."""
    if config.concurrency < 1:
        raise ConfigError(f"--concurrency must be >= 1, got {config.concurrency}")
    if config.max_attempts < 2:
        raise ConfigError(f"--max-attempts must be >= 2 to compare healing with one shot, got {config.max_attempts}")
    unknown = sorted(set(config.conditions) - set(CONDITIONS))
    if unknown:
        raise ConfigError(f"unknown condition(s) {', '.join(unknown)}: choose from {', '.join(CONDITIONS)}")
    problems = chosen_problems(config)
    conditions = run_conditions(config)
    contexts = {condition: settings_of(condition_context(condition, config)) for condition in CONDITIONS}
    records: Records[ProblemRecord] = Records(
        config.out_dir / f"{config.suite}.jsonl", key=lambda r: (r["condition"], r["task_id"]),
        settings_of=lambda r: contexts[r["condition"]],
    )
    if not config.report_only:
        asyncio.run(_run_all(config, conditions, problems, records, console))
    return report(config, problems, records, conditions)


def report(config: BenchConfig, problems: list[Problem], records: Records[ProblemRecord],
           conditions: tuple[Condition, ...]) -> dict:
    """Write the summary, the Markdown report and the plots of the records so far (a condition
    not yet run on every problem counts its finished ones); return the summary."""
    defaults = condition_context("resample", config).policy
    budget = f"a budget of {config.max_tokens} tokens per run" if config.max_tokens else "no token budget"
    samples = {c: condition_context(c, config).policy.retry_samples for c in conditions if c != "one_shot"}
    settings = (
        f"Candidates per retry: {', '.join(f'{c} {n}' for c, n in samples.items())} (from temperature "
        f"{defaults.retry_temperature:g}), the one passing most visible checks kept; {budget}; "
        f"{config.concurrency} problems at once; visible-test timeout {config.timeout_s:g} s. Problems: "
        f"{'all' if config.slice == 'all' else f'the {config.slice} slice'}"
        f"{f', past the first {config.skip}' if config.skip else ''}"
        f"{f', the first {config.limit}' if config.limit else ''}"
        f"{f', those with at most {config.max_checks} visible checks' if config.max_checks is not None else ''}."
    )
    select = condition_context("resample", config).module.select_samples
    if select:
        settings += f" After a pass, up to {select} more candidates chosen among by their outputs on generated inputs."
    if config.first_check_only:
        settings += " The loop's tests: each problem's first visible check alone."
    if not condition_context("resample", config).module.task_examples:
        settings += " The task text's examples not checked (task_examples off)."
    if config.hedge:
        settings += " The first retry hedged: one sample shown the failure, the rest fresh (Policy.hedge)."
    if config.model in EMBEDDED:
        settings += f" Local server slots: {os.environ.get(SLOTS_ENV, '1')}."
    return write_report(config.out_dir, humaneval_report(problems, list(records), config.model,
                                                         config.max_attempts, conditions, settings, config.suite))


def run_conditions(config: BenchConfig) -> tuple[Condition, ...]:
    """The conditions a run covers, in CONDITIONS order: those asked for, and one_shot."""
    return tuple(c for c in CONDITIONS if c == "one_shot" or c in config.conditions)


async def _run_all(
    config: BenchConfig, conditions: tuple[Condition, ...], problems: list[Problem],
    records: Records[ProblemRecord], console: Console,
) -> None:
    if any((condition, p.task_id) not in records for condition in conditions for p in problems):
        _warm_up(config)  # a rerun with every record in place only rewrites the report
    verdicts: dict[tuple[str, str], HiddenVerdict] = {}
    config.out_dir.mkdir(parents=True, exist_ok=True)
    with SqliteStore.from_conn_string(str(config.out_dir / STORE_FILE)) as store, Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console,
    ) as progress:
        store.setup()
        graph = build_graph().compile(store=store, name="codeheal")
        for condition in conditions:
            done = [p for p in problems if (condition, p.task_id) in records]
            bar = progress.add_task(_describe(condition, records, done), total=len(problems), completed=len(done))
            context = condition_context(condition, config)
            gate = asyncio.Semaphore(config.concurrency)

            async def one(problem: Problem) -> None:
                async with gate:
                    seed = records.get(("one_shot", problem.task_id)) if condition != "one_shot" else None
                    try:
                        record = await run_problem(graph, problem, condition, context, config, seed, verdicts)
                    except CodehealError as exc:
                        # Infrastructure, not a result: left unrecorded, so a rerun retries it.
                        console.print(f"[yellow]{condition} {problem.task_id}: {type(exc).__name__}: {escape(str(exc))}[/yellow]")
                        return
                records.add(record)
                finished = [p for p in problems if (condition, p.task_id) in records]
                progress.update(bar, advance=1, description=_describe(condition, records, finished))

            await asyncio.gather(*(one(p) for p in problems if (condition, p.task_id) not in records))


def _describe(condition: Condition, records: Records[ProblemRecord], done: list[Problem]) -> str:
    passed = sum(records[(condition, p.task_id)]["hidden_passed"] for p in done)
    return f"{condition:<9} hidden pass {passed}/{len(done)}"


def _warm_up(config: BenchConfig) -> None:
    """Start the local server (and assemble the model) before K runs wait on it at once."""
    if config.model in EMBEDDED:
        chat_model(condition_context("one_shot", config), 0.0)


async def run_problem(
    graph: CompiledStateGraph, problem: Problem, condition: Condition, context: Context,
    config: BenchConfig, seed: ProblemRecord | None, verdicts: dict[tuple[str, str], HiddenVerdict],
) -> ProblemRecord:
    """Run the loop on one problem under one condition and score its result.

    `seed`, the one_shot record of the same problem, supplies attempt 1 when it has code."""
    request = {"task": task_text(problem), "tests": problem.visible_tests, "entry_point": problem.entry_point}
    shared = seed is not None and bool(seed["code"].strip())
    if shared:
        request["starting_code"] = seed["code"]
    feedbacks: list[Feedback] = []
    final: dict = {}
    recorder = ReplyRecorder()
    started_at = time.time()
    started = time.perf_counter()
    async for namespace, mode, chunk in graph.astream(  # subgraphs: the evaluator's updates, inside each attempt
        request, context=context, stream_mode=["updates", "values"], config={"callbacks": [recorder]}, subgraphs=True
    ):
        if mode == "values":
            final = chunk if not namespace else final
        elif (chunk.get("evaluator") or {}).get("feedback"):  # not while an attempt's testing goes on
            feedbacks.append(chunk["evaluator"]["feedback"])
    seconds_total = time.perf_counter() - started
    finished_at = time.time()

    history: list[dict[str, Any]] = final["history"]
    written = recorder.actor_replies()
    # The actor writes every attempt but a shared attempt 1 (one_shot's code, re-tested).
    replies = [[], *written] if shared else written
    log = [_attempt_record(a, f, r) for a, f, r in zip(history, feedbacks, [*replies, *([[]] * len(history))])]
    seed_model = seed["attempt_log"][0] if shared else None
    if seed_model:
        log[0] = {
            **log[0],
            "tokens": log[0]["tokens"] + seed_model["tokens"],
            "prompt_tokens": log[0]["prompt_tokens"] + seed_model["prompt_tokens"],
            "completion_tokens": log[0]["completion_tokens"] + seed_model["completion_tokens"],
            "seconds_model": round(log[0]["seconds_model"] + seed_model["seconds_model"], 3),
        }
    cap = context.max_attempts
    by_attempt = [best_attempt(history[: min(k, len(history))])["code"] for k in range(1, cap + 1)]
    scored = {code: await _verdict(problem, code, verdicts) for code in dict.fromkeys(by_attempt)}
    final_verdict = scored[final["code"]] if final["code"] in scored else await _verdict(problem, final["code"], verdicts)
    seconds_model = sum(a["seconds_model"] for a in log)
    seconds_sandbox = sum(a["seconds_sandbox"] for a in log)
    own_model = seconds_model - (seed_model["seconds_model"] if seed_model else 0.0)
    return ProblemRecord(
        condition=condition,
        task_id=problem.task_id,
        model=config.model,
        run_max_attempts=config.max_attempts,
        run_retry_samples=context.policy.retry_samples,
        context=settings_of(context),
        visible_source=problem.visible_source,
        visible_count=problem.visible_count,
        status=final["status"],
        attempts=final["attempts"],
        hidden_passed=final_verdict.passed,
        hidden_error=final_verdict.error,
        hidden_by_attempt=[scored[code].passed for code in by_attempt],
        first_attempt="shared" if shared else "own",
        tokens=sum(a["tokens"] for a in log),
        prompt_tokens=sum(a["prompt_tokens"] for a in log),
        completion_tokens=sum(a["completion_tokens"] for a in log),
        seconds_model=round(seconds_model, 3),
        seconds_sandbox=round(seconds_sandbox, 3),
        seconds_rest=round(max(seconds_total - own_model - seconds_sandbox, 0.0), 3),
        timings={name: round(sum(a.get("timings", {}).get(name, 0) for a in log), 3) for name in TIMINGS},
        started_at=started_at,
        finished_at=finished_at,
        attempt_log=log,
        reflections=list(final.get("reflections") or []),
        code=final["code"],
    )


async def _verdict(problem: Problem, code: str, verdicts: dict[tuple[str, str], HiddenVerdict]) -> HiddenVerdict:
    key = (problem.task_id, code)
    if key not in verdicts:
        verdicts[key] = await hidden_verdict(problem, code)
    return verdicts[key]


class ReplyRecorder(BaseCallbackHandler):
    """Keeps the text of every reply the actor got, by graph step, for the extraction
    analysis (codeheal_bench/scripts/extraction_loss.py). A prefilled reply is kept with its prefill
    in front, as the form reads it."""

    def __init__(self) -> None:
        self._prefills: dict[str, str] = {}
        self._steps: dict[str, str] = {}
        self._replies: dict[str, list[str]] = {}

    def on_chat_model_start(self, serialized: dict, messages: list[list[BaseMessage]], *, run_id, metadata=None,
                            **kwargs) -> None:
        if (metadata or {}).get("langgraph_node") != "actor":
            return
        last = messages[0][-1]
        self._prefills[str(run_id)] = last.content if isinstance(last, AIMessage) and isinstance(last.content, str) else ""
        self._steps[str(run_id)] = metadata["langgraph_checkpoint_ns"]  # the actor's run: one per attempt

    def on_llm_end(self, response: LLMResult, *, run_id, **kwargs) -> None:
        if str(run_id) not in self._steps:
            return
        prefill = self._prefills[str(run_id)]
        texts = [generation.text for generation in response.generations[0]]
        self._replies.setdefault(self._steps[str(run_id)], []).extend(
            text if text.startswith(prefill) else prefill + text for text in texts
        )

    def actor_replies(self) -> list[list[str]]:
        """The replies of each actor call, in the order the calls were made."""
        return list(self._replies.values())  # in the order their first reply came


def _attempt_record(attempt: dict[str, Any], feedback: Feedback, replies: list[str]) -> AttemptRecord:
    seconds_sandbox = feedback["seconds"]
    return AttemptRecord(
        attempt=attempt["attempt"],
        kind=attempt_kind(feedback, attempt["code"]),
        summary=attempt["summary"],
        signature=failure_signature(feedback),
        passed_count=attempt["passed_count"],
        total=attempt["total"],
        tokens=attempt["tokens"],
        prompt_tokens=attempt.get("prompt_tokens", 0),
        completion_tokens=attempt.get("completion_tokens", 0),
        seconds_model=round(max(attempt["seconds"] - seconds_sandbox, 0.0), 3),
        seconds_sandbox=round(seconds_sandbox, 3),
        timings={name: attempt.get(name, 0) for name in TIMINGS},
        code_sha=hashlib.sha256(attempt["code"].encode()).hexdigest()[:12],
        candidates_tested=attempt.get("candidates_tested", 1),
        selection=attempt.get("selection"),
        replies=replies,
    )


def attempt_kind(feedback: Feedback, code: str) -> AttemptKind:
    """What kind of outcome an attempt had, for the failure analysis (an attempt with no code
    is one whose replies held none: the loop tests nothing)."""
    if feedback["passed"]:
        return "passed"
    if not code.strip():
        return "no_code"
    if feedback["failures"] and feedback["failures"][0]["test"] == "<compile>":
        return "syntax"
    if feedback["timed_out"]:
        return "timeout"
    if feedback["error"]:
        return "crash"
    return "failed"


def failure_signature(feedback: Feedback) -> str:
    """The failure without timings or paths: which checks failed, how, with what value."""
    if feedback["passed"]:
        return "passed"
    if feedback["error"] and not feedback["failures"]:
        return feedback["error"].splitlines()[0]
    return " | ".join(
        f"{f['test']}:{f['exception']}:{f['actual'] if f['actual'] is not None else f['message'][:120]}"
        for f in feedback["failures"][:3]
    )
