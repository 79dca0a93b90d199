"""Graph state: what goes in, what comes out, and what the nodes keep in between."""

from __future__ import annotations

import operator
from dataclasses import dataclass, field, fields
from typing import Annotated, Any, Literal, NotRequired

from typing_extensions import (
    TypedDict,  # pydantic (Studio's schemas) needs it on Python < 3.12
)

Status = Literal["running", "passed", "failed", "accepted", "stuck", "budget", "deadline"]
"""Status "accepted": the tests did not all pass, but a human reviewer accepted the best
attempt. "stuck": a fresh start failed the same way as the two attempts before it (project
form: every candidate of an attempt had been tried before). "budget":
the run's token budget (Context.max_tokens) could not pay for the next model call.
"deadline": the run's time (Context.deadline_s) ran out before its attempts did."""
StopReason = Literal["budget", "deadline"]
"""Why a node ended the run early: the token budget, or the run's deadline."""


FormName = Literal["module", "project"]
"""The form of a run (see codeheal/forms/): a module written against tests, or a project healed
against its test command."""
Candidate = str | None
"""Code to test: a module (module form), a reply's corrected definitions (project form), ""
when a reply had no code; AS_IS: no change, the project as it is."""
AS_IS: Candidate = None


class FormRun(TypedDict):
    """A run's facts as its form computed them once (the project form's: ProjectRun in
    codeheal/forms/project/run.py); later steps read them instead of computing them again.
    Plain data, so every checkpointer saves and loads it as it is."""


class Frame(TypedDict):
    """One traceback frame that belongs to the candidate or the tests."""

    file: str
    line: int
    function: str
    source: str


class CheckFailure(TypedDict):
    """One failed check: a test function or a plain top-level assert."""

    test: str
    exception: str
    message: str
    line: int | None
    """Line in solution.py closest to the failure, when the traceback reaches it."""
    frames: list[Frame]
    expected: str | None
    actual: str | None
    inputs: NotRequired[dict[str, str]]
    """A parametrised test's arguments for this case (name -> repr), as pytest passed them."""
    frames_left_out: NotRequired[int]
    """How many frames were left out after `frames`' first FRAMES_HEAD (a deep recursion's
    calls); absent when none were."""


class Feedback(TypedDict):
    """The structured outcome of evaluating one candidate."""

    passed: bool
    total: int
    passed_count: int
    failures: list[CheckFailure]
    error: str | None
    """A problem with the whole attempt (no code, syntax error, import crash, timeout)."""
    stdout: str
    stderr: str
    output_truncated: bool
    timed_out: bool
    seconds: float
    """Sandbox wall time; for an attempt of several candidates, all of them together."""
    isolation: str
    lint: NotRequired[list[str]]
    """Static findings on a failed candidate (undefined names, ...): notes, never the verdict."""
    tests_ran: NotRequired[list[str]]
    """The node ids whose test ran (passed or failed, not skipped)."""
    tests_failed: NotRequired[list[str]]
    """The node ids of the tests that failed (in their call, setup or teardown)."""
    time_limit_s: NotRequired[float]
    """Project form: the time limit the test runs had."""
    checked: NotRequired[str]
    """Project form, a change that passed the test command: what the regression check ran
    beyond it (forms/project/regression.py), in words."""
    in_test_process: NotRequired[str]
    """Module form: why the tests were judged with the candidate in the test process, as plain
    pytest runs them (evaluation/routes.py); absent: in a process of its own."""


class Usage(TypedDict):
    """What one or more model calls cost."""

    tokens: int
    """prompt_tokens + completion_tokens."""
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    prompt_evaluated: int
    """Prompt tokens the server evaluated (llama.cpp's `timings.prompt_n`; 0 from a server
    that does not say)."""
    prompt_reused: int
    """Prompt tokens the server took from its cache of an earlier prompt (`timings.cache_n`)."""
    prompt_seconds: float
    """Seconds the server spent reading the prompt (`timings.prompt_ms`)."""
    generation_seconds: float
    """Seconds the server spent writing the reply (`timings.predicted_ms`)."""


class Breakdown(TypedDict):
    """Where a run's (or an attempt's) time went: the model's prompt reading and writing,
    the sandbox, and the rest (codeheal's own overhead, transport included)."""

    prompt_evaluated: int
    prompt_reused: int
    prompt_seconds: float
    generation_seconds: float
    sandbox_seconds: float
    overhead_seconds: float
    """The wall time less the model's and the sandbox's seconds."""
    model_server: NotRequired[Literal["warm", "started", "restarted"]]
    """A run on an embedded model's resident server (the CLI's): whether the run found it
    running, or started it (again, after it had died)."""
    model_start_seconds: NotRequired[float]
    """The seconds the run spent finding or starting it (the model's load, when it started it)."""


class ChangedDefinition(TypedDict):
    """Project form: one function, method, import or file the healed change touches."""

    file: str
    name: str
    kind: Literal["function", "method", "import", "file", "helper"]
    """"helper": a new plain function added beside a corrected one."""


class AppliedChange(TypedDict):
    """Project form: a reply applied to the project's files, or why it could not be."""

    files: dict[str, str]
    """The files it changes (path -> full new text)."""
    changed: list[ChangedDefinition]
    refused: str | None
    """Why the reply could not be applied (then nothing changes)."""


class Selection(TypedDict):
    """How an attempt that passed the user's tests chose among more candidates by their outputs
    on generated inputs (nodes/selection.py)."""

    candidates: int
    eligible: int
    """Candidates that passed the user's tests: only these could be chosen."""
    generated_inputs: int
    agreeing: int
    """Eligible candidates with the chosen one's outputs on the generated inputs, itself included."""


Action = Literal["shown", "fresh"]
"""How a retry is written: shown the last failure, or a fresh sample of the first prompt."""


class Route(TypedDict):
    """How a retry was written, and after what kind of failure (rules.failure_kind): its
    outcome is counted (codeheal.learning) once the attempt is evaluated."""

    attempt: int
    kind: str
    action: Action
    model: str
    """The model the choice was made for, which wrote the retry."""


class Attempt(TypedDict):
    """One entry of `history`: an attempt from generation to reflection."""

    attempt: int
    code: str
    model: NotRequired[str]
    """The model that wrote it (Context.model, or one of then_models); absent when no model
    did: the given code, the project as it is, the screen's mutants."""
    candidates_tested: NotRequired[int]
    """How many new candidates were tested for this attempt (testing stops at the first
    that passes); `code` is the best of them."""
    fresh_start: NotRequired[bool]
    """Written from the first attempt's prompt because the run was stuck."""
    task_checks_failed: NotRequired[int]
    """Module form: how many of the task's checks (State.task_checks) its code failed (0 with
    none)."""
    summary: str
    passed: NotRequired[bool]
    """Its evaluation passed (every expected test ran and passed)."""
    in_test_process: NotRequired[str]
    """Module form: why its tests were judged with the candidate in the test process
    (Feedback.in_test_process); absent: in a process of its own."""
    passed_count: int
    total: int
    reflection: str | None
    tokens: int
    """Model tokens of the attempt: writing its candidates and reflecting on it."""
    prompt_tokens: NotRequired[int]
    completion_tokens: NotRequired[int]
    seconds: float
    prompt_evaluated: NotRequired[int]
    """The Usage fields of its model calls, summed."""
    prompt_reused: NotRequired[int]
    prompt_seconds: NotRequired[float]
    generation_seconds: NotRequired[float]
    sandbox_seconds: NotRequired[float]
    """Sandbox time of all its tested candidates."""
    selection: NotRequired[Selection]
    """Set when this attempt chose among candidates by generated inputs; its verdict is still
    the user's tests' alone."""
    changes: NotRequired[dict[str, str]]
    """Project form: the files this attempt changed (path -> full new text); `code` is then
    the model's corrected definitions, as the evaluator applied them."""
    changed: NotRequired[list[ChangedDefinition]]
    """Project form: what the change touched."""
    diff: NotRequired[str]
    """Project form: the change as a unified diff against the project as it is."""
    checked: NotRequired[str]
    """Project form: what the regression check ran beyond the test command (Feedback.checked)."""
    repeat: NotRequired[bool]
    """Every candidate of this attempt had been tried before in the run (Prepared.key)."""


class SuspiciousLine(TypedDict):
    """Project form: a line of the project's code ranked by how likely it holds the defect
    (codeheal/forms/project/suspicious.py)."""

    file: str
    line: int
    score: float


class Prepared(TypedDict):
    """A candidate as its form prepared it once, before its test (Form.prepare): what makes
    it the same as another, how much it changes, and, in the project form, the change itself."""

    key: str
    """Two candidates with one key are one (module form: the same syntax tree; project form:
    the same change as applied); a key tried before in the run is not tested again."""
    size: int
    """How much it changes, as its test will count it (project form: changed lines; one that
    cannot be applied: sys.maxsize): among candidates that pass, the smaller wins."""
    change: NotRequired[AppliedChange]
    """Project form: the reply as applied, or why it could not be; its test reads it."""


class PreparedCandidate(Prepared):
    """One candidate of the attempt to test, in the order they are tested (`prepared`)."""

    index: int
    """Its place among the attempt's candidates: the earlier wins among equals."""
    code: Candidate
    copies: int
    """How many of the drawn candidates share its key (choosing by generated inputs counts each)."""


class ScreenPlan(TypedDict):
    """What the screen (State.screen) tries, and the time it may take."""

    tries: str
    """Its candidates, in words: "one-line mutations of the suspicious lines", "one-edit
    repairs of the syntax error in FILE line N", ..."""
    seconds: float
    """Its time (rules.screen_budget: from the project's own test time and the run's time left)."""
    ends_with_left: float
    """The run's time left (rules.seconds_left) when the screen's is up: no batch of it starts
    after, and no run of it goes past. Read against the run's deadline, it holds when a resumed
    run's deadline is set afresh."""


class Tried(TypedDict):
    """A candidate tested in this run: what makes it the same as another (Prepared.key)
    and how its test ended."""

    key: str
    summary: str


class TestedCandidate(TypedDict):
    """One candidate of an attempt and what its test showed (a `test_candidate` task's result)."""

    index: int
    """Its place among the attempt's candidates: the earlier wins among equals."""
    code: Candidate
    key: NotRequired[str]
    """Its Prepared.key (set by the test_candidate node)."""
    feedback: Feedback
    changes: NotRequired[dict[str, str]]
    """Project form: the files the candidate changed (path -> full new text)."""
    changed: NotRequired[list[ChangedDefinition]]
    diff: NotRequired[str]
    """Project form: the change as a unified diff against the project as it is."""
    changed_lines: NotRequired[int]
    """Project form: lines the candidate's change removes plus lines it adds."""
    form_run: NotRequired[FormRun]
    """The run's record with what this test found (project form: the project as it is, tested)."""


def add_or_clear(current: list[TestedCandidate] | None, new: list[TestedCandidate] | None) -> list[TestedCandidate]:
    """`tested` grows by each parallel task's result; None (written by the evaluator once it
    has chosen, and by `prepare`) empties it for the next attempt."""
    return [] if new is None else [*(current or []), *new]


class RunInput(TypedDict):
    """What one run is asked to do. Kept on a thread only until the run ends.

    Two forms. The module form: `task` and `tests` (a new `solution.py` written against
    them). The project form: `project` (a folder) and `test_command`, `task` optional: the
    project's failing tests are healed by targeted edits of its functions."""

    task: NotRequired[str]
    """What the code should do; required in the module form."""
    tests: NotRequired[str]
    """Module form: pytest-style test_* functions or plain asserts."""
    entry_point: NotRequired[str | None]
    starting_code: NotRequired[str | None]
    """Code to test (and heal) before any model call, e.g. a user's failing draft."""
    project: NotRequired[str | None]
    """Project form: the project's folder. It is read once, never written unless `apply`."""
    test_command: NotRequired[str | None]
    """Project form: the test command, run from the project's root, e.g.
    "python -m pytest -q tests/test_cart.py" (pytest, shell-free)."""
    check_command: NotRequired[str | None]
    """Project form: a static checker whose errors are failures too, e.g. "python -m mypy shop"
    (mypy, pyright, ruff, or one printing `file:line: error: message`); alone, or with
    `test_command` (then both must hold)."""
    target: NotRequired[str | None]
    """Project form: FILE::FUNC, the function to repair (else those on the failing traceback)."""
    python: NotRequired[str | None]
    """The interpreter the tests run on, its packages visible read-only (default: the project's
    virtualenv; module form: the active virtualenv unless it is codeheal's, else the sandbox's
    own Python, the standard library and pytest)."""
    apply: NotRequired[bool]
    """Project form: write the healed change into the project when the tests pass."""
    force: NotRequired[bool]
    """Project form, with `apply`: write even over uncommitted changes of the touched files."""


class InputState(RunInput):
    reflections: NotRequired[list[str]]
    """Reflections to start from, e.g. a parent agent's memory; the output returns them with
    this run's reflections appended."""


class OutputState(TypedDict):
    code: str
    """The best attempt: the one that passed the most checks."""
    status: Status
    attempts: int
    reflections: list[str]
    history: list[Attempt]
    diff: NotRequired[str]
    """Project form: the best attempt's change as a unified diff ("" when none was needed)."""
    changed: NotRequired[list[ChangedDefinition]]
    """Project form: what the diff changes."""
    files_written: NotRequired[list[str]]
    """Project form: the files `apply` wrote (none unless the tests passed)."""
    checked: NotRequired[str]
    """Project form: what the best attempt's regression check ran beyond the test command."""
    task_checks: NotRequired[list[str]]
    """Module form: the asserts the task text's examples added to the tests."""


class RunTotals(TypedDict):
    """What a run cost and what healed it (the CLI's last line, and `totals` in its JSON)."""

    prompt_tokens: int
    completion_tokens: int
    """Tokens of every attempt of the run (a resumed run's earlier attempts included)."""
    model_calls: int
    """Requests to the model made by this command (not by an earlier, interrupted one)."""
    seconds: float
    """Wall time of this command's run."""
    healed_by: Literal["model", "screen", "nothing"] | None
    """What wrote the passing code: the model, the screen (mutations, a syntax slip's or a failing
    import's repairs; no model call), or nothing (the project or the given code passed as it
    was); None when not healed."""
    healed_by_model: str | None
    """Which model wrote the passing code (Context.model, or one of then_models, the ladder);
    None unless healed_by is "model"."""
    breakdown: Breakdown
    """Where the seconds went (`codeheal.breakdown` of the history over `seconds`): the model's
    prompt reading (tokens evaluated and reused from the server's cache) and writing, the
    sandbox, and the rest: start-up, the model's loading, codeheal's own work. A resumed run's
    earlier attempts count in the model's and the sandbox's parts."""


class RunReport(OutputState):
    """A run's output as the runner returns it (`codeheal solve`, `fix`, `resume`): with its form."""

    form: FormName
    """"module" (a function and its tests) or "project" (a project's test command)."""
    totals: NotRequired[RunTotals]
    note: NotRequired[str]
    """What the status alone does not say, when there is something (the `status` progress
    event's note: from Form.outcome)."""


@dataclass(kw_only=True)
class State:
    """The run's state, the parent graph's: the run's input (RunInput's fields, kept on a thread
    only until the run ends), the thread's memory, the run's scratch fields (`prepare` resets
    them at the start of each run) and its outcome. Every field has its default, so nodes read
    fields (`state.attempts`), never `.get(...) or 0`; LangGraph builds it from the channels
    for each node, and a node's update is a dict. Checkpoints and `get_state` hold plain dicts
    of the channels: code that reads one (the runner, lsp/runs.py) reads a dict, and tests that
    call a node's helpers build the class. An attempt runs in its own subgraph
    (codeheal/loop/attempt.py) on AttemptState, and hands back an AttemptOutcome."""

    # The run's input (RunInput).
    task: str | None = None
    tests: str | None = None
    entry_point: str | None = None
    starting_code: str | None = None
    project: str | None = None
    test_command: str | None = None
    check_command: str | None = None
    target: str | None = None
    python: str | None = None
    apply: bool = False
    force: bool = False

    # The thread's memory.
    reflections: Annotated[list[str], operator.add] = field(default_factory=list)
    """The reflection memory: appended across attempts and across runs of a thread."""

    # The run's scratch fields.
    form: FormName = "module"
    """The run's form, chosen by prepare: every node asks it (codeheal/forms/)."""
    candidates: list[Candidate] = field(default_factory=list)
    """Candidates written before the next attempt (the starting code; the project as it is),
    which it tests before any model call; in an attempt, the ones it tests next."""
    prepared: list[PreparedCandidate] = field(default_factory=list)
    """`candidates`, each prepared once (nodes/prepare_candidates.py, by `prepare_candidates`
    after the actor, by `prepare` and the selector for the candidates they write:
    de-duplicated, those tried before left out, in the order drawn): the routers and the
    evaluator read them, never prepare them again. Empty once an attempt is recorded."""
    route: Route | None = None
    """How the latest retry was routed by kind (feedback_when "by_kind"), not yet counted."""
    written: int = 0
    """How many times the model has written candidates in this run."""
    screened: bool = False
    """The candidates written without a model (`screen`) were tested in this run."""
    screen: list[Candidate] = field(default_factory=list)
    """Candidates written without a model, tested as the next attempt before the model writes
    any (project form: the mutants of the suspicious lines, set by Form.record once the project
    as it is was tested); emptied when the actor takes them."""
    screen_plan: ScreenPlan | None = None
    """What the screen tries and its time, set with `screen`."""
    stop_reason: StopReason | None = None
    """Set by a node that could not afford its model call, or found the run's time out: the
    run finishes."""
    deadline: float | None = None
    """When the run must answer, in seconds since the epoch (time.time(); prepare sets it from
    Context.deadline_s): routers and rules compare it with the clock. The run's time is a
    budget counted from each start: a resumed run's is set afresh (runner.py), inside the
    attempt it was cut in too (loop/attempt.py)."""
    tried: list[Tried] = field(default_factory=list)
    """Every candidate tested in this run, in order: one tried before is not tested again."""
    probe_function: str | None = None
    """The function generated inputs call when an attempt that passed chooses by execution
    (module form: the entry point or the task's stub's); None: no choice can apply."""
    task_checks: list[str] = field(default_factory=list)
    """Module form: the asserts the task text's examples add to the user's tests
    (ModuleSettings.task_examples); every candidate runs them after the tests."""
    feedback: Feedback | None = None
    """The evaluation of the latest attempt."""
    attempt_limit: int | None = None
    """Attempts this run may use when a human reviewer granted more; None: Context.max_attempts."""
    sandbox_session: str | None = None
    """Key under which this run's attempts share one sandbox (E2B); never the sandbox handle."""
    form_run: FormRun | None = None
    """The run's facts as its form computed them (project form: the parsed test command and
    target, the workspace's content key (the files themselves are kept outside state:
    forms/project/workspace_store.py), the interpreter, then the project as it is, tested, and
    the repair's scope)."""
    left_out: list[str] | None = None
    """Project form: what the snapshot left out and why ("path (reason)"), said once."""

    # The run's outcome, as it builds up; `finish` writes the final status and code.
    code: str = ""
    status: Status = "running"
    attempts: int = 0
    history: list[Attempt] = field(default_factory=list)
    diff: str | None = None
    changed: list[ChangedDefinition] | None = None
    files_written: list[str] | None = None


def no_usage() -> Usage:
    """What no model call cost."""
    return Usage(tokens=0, prompt_tokens=0, completion_tokens=0, seconds=0.0, prompt_evaluated=0,
                 prompt_reused=0, prompt_seconds=0.0, generation_seconds=0.0)


@dataclass(kw_only=True)
class AttemptState(State):
    """An attempt's state (the attempt subgraph's): the run's, as the attempt starts, and what
    the attempt keeps while it draws, tests and chooses, and drops when it ends (its fields
    start at their defaults: nothing written, tested or chosen yet)."""

    usages: list[Usage] = field(default_factory=list)
    """What each reply the actor drew for the attempt cost, in order (a draw once more
    continues their seeds and their budget)."""
    generation: Usage = field(default_factory=no_usage)
    """What writing the latest candidates cost, all samples together."""
    fresh_start: bool = False
    """The latest candidates were written from the first attempt's prompt."""
    hedged: bool = False
    """The actor's draw was hedged: its first sample shown the failure (policy.hedges)."""
    repeats: list[Prepared] = field(default_factory=list)
    """The actor's first draw, prepared (each distinct text, in the order drawn), when every
    reply repeated code tried before in the run: the actor draws once more, and they are not
    prepared again (nodes/prepare_candidates.py)."""
    model: str | None = None
    """The model that wrote the latest candidates (None: no model did)."""
    tested: Annotated[list[TestedCandidate], add_or_clear] = field(default_factory=list)
    """The latest candidates' test results, gathered from their parallel tasks."""
    generated_inputs: str | None = None
    """Generated inputs, as checks that report the output, the latest candidates run on after
    the user's tests (selection)."""
    select_round: int | None = None
    """The selector's latest round while it chooses (1, then 2 when the first disagreed)."""


def fields_of(state: State) -> dict[str, Any]:
    """A state's fields as a dict (shallow: the values are the state's own), e.g. a subgraph's
    input."""
    return {f.name: getattr(state, f.name) for f in fields(state)}


class AttemptOutcome(TypedDict, total=False):
    """What an attempt hands back to the run: its record and what it changed of the run's
    fields (the rest of AttemptState is the attempt's own)."""

    attempts: int
    feedback: Feedback | None
    history: list[Attempt]
    tried: list[Tried]
    candidates: list[Candidate]
    prepared: list[PreparedCandidate]
    form_run: FormRun | None
    screen: list[Candidate]
    screen_plan: ScreenPlan | None
    screened: bool
    written: int
    stop_reason: StopReason | None
    route: Route | None


class CandidateJob(TypedDict, total=False):
    """A `test_candidate` task's input (sent with `Send`): one candidate, and what testing it
    needs from the run's state."""

    form: FormName
    candidate: Candidate
    key: str
    index: int
    session: str | None
    tests: str
    entry_point: str | None
    python: str | None
    form_run: FormRun
    change: AppliedChange
    """Project form: the reply as prepared (Form.prepare), so that its test does not apply it
    again."""
    screened: bool
    """The candidate was written without a model (`screen`): its test runs under
    rules.screen_time_limit."""
    seconds_left: float
    """The run's time left when the candidate was sent (the screen's, when less): no test run
    of the candidate's goes on longer than that from the start of its test
    (rules.test_run_limit). Seconds, not a moment: a test sent again by a resumed run counts
    them afresh, as the resumed run counts its own."""
