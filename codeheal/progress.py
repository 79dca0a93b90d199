"""Live progress: the custom stream events the nodes emit while a run goes on, the one source
of progress (the CLI narrates from them too).

Read them with ``graph.stream(inp, stream_mode=["updates", "custom"])`` (each custom chunk is
one event below) or through the LangGraph server's stream with ``stream_mode="custom"``.
Every event is a plain dict whose ``kind`` key says which of the nine shapes it has:

- ``run_started``: the run's input was accepted; ``first`` says what happens first: the
  ``"model"`` writes code, the ``"starting_code"`` is tested, or the ``"project"`` (of
  ``files`` files) is tested as it is; ``left_out`` (project form) names what its copy left
  out and why (secrets, what git ignores, binary files); ``task_checks`` (module form, when
  there are any) counts the asserts the task text's examples add to the tests.
- ``model_switched``: ``attempt`` is the first the next model of the ladder
  (Context.then_models), ``model``, writes, because the one before it, ``previous``, was
  ``stuck`` or had written its share of the attempts (``after``: "stuck" or "turn used").
- ``attempt_started``: ``attempt`` (1-based) of ``max_attempts`` is being written, with
  ``seconds_left`` of the run's time (Context.deadline_s).
- ``candidates_written``: the actor wrote ``attempt``'s candidates in ``seconds``, using
  ``prompt_tokens`` + ``completion_tokens`` (0 when the model does not report them). With
  ``mutants`` (project form), the attempt is the screen: that many candidates written without
  a model call, ``screen`` saying what they try ("one-line mutations of the suspicious lines",
  "one-edit repairs of the syntax error in FILE line N", "respellings of the failing import", "cheap repairs of the checker's type errors"),
  within ``screen_seconds`` of the run's time.
- ``writing``: the model is writing ``attempt``'s candidates, a reply it streams (the embedded
  model's resident server): ``completion_tokens`` written so far by the call, in ``seconds``
  since it began; about once a second while it writes (none for a reply written within a
  second, nor for a server that does not stream).
- ``tests_result``: the evaluator finished ``attempt``: ``passed``, ``passed_count`` of
  ``total`` checks, a one-line ``summary``, the ``seconds`` the attempt took (model and
  sandbox), the ``sandbox_seconds`` of its tests and the sandbox's ``isolation``; in the
  project form also ``time_limit_s``, the limit each of its test runs had; in the module form
  ``in_test_process``, why its tests were judged with the candidate in the test process;
  ``untested``: the candidates it left untested because its time (the screen's or the run's)
  was up.
- ``reflection_written``: the reflection drawn from ``attempt`` (from the reflector, or a
  human reviewer's hint).
- ``change_to_write``: the project form is about to write its passing change, ``diff``, into
  the project (``apply``).
- ``status``: the run ended with ``status`` (one of codeheal.state.Status: "passed",
  "failed", "accepted", "stuck", "budget", "deadline") after ``attempts`` attempts, with a ``note`` when
  the end has a cause the status does not say (the module form: the code passes the user's
  tests and fails only examples from the task text). Emitted once, when the outcome is final.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from langgraph.config import get_stream_writer

from codeheal.state import Status


class RunStarted(TypedDict):
    kind: Literal["run_started"]
    first: Literal["model", "starting_code", "project"]
    files: int
    left_out: NotRequired[list[str]]
    task_checks: NotRequired[int]


class ChangeToWrite(TypedDict):
    kind: Literal["change_to_write"]
    diff: str


class ModelSwitched(TypedDict):
    kind: Literal["model_switched"]
    attempt: int
    model: str
    previous: str
    after: Literal["stuck", "turn used"]


class AttemptStarted(TypedDict):
    kind: Literal["attempt_started"]
    attempt: int
    max_attempts: int
    seconds_left: NotRequired[float]


class CandidatesWritten(TypedDict):
    kind: Literal["candidates_written"]
    attempt: int
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    mutants: NotRequired[int]
    screen: NotRequired[str]
    screen_seconds: NotRequired[float]


class Writing(TypedDict):
    kind: Literal["writing"]
    attempt: int
    completion_tokens: int
    seconds: float


class AttemptTested(TypedDict):
    kind: Literal["tests_result"]
    attempt: int
    passed: bool
    passed_count: int
    total: int
    summary: str
    seconds: float
    sandbox_seconds: float
    isolation: str
    time_limit_s: NotRequired[float]
    in_test_process: NotRequired[str]
    candidates: NotRequired[int]
    """When the attempt tested more than one candidate: how many (sandbox_seconds sums their runs,
    which overlap)."""
    untested: NotRequired[int]
    """Candidates the attempt left untested because its time was up (the screen's, or the run's)."""


class ReflectionWritten(TypedDict):
    kind: Literal["reflection_written"]
    attempt: int
    reflection: str


class RunStatus(TypedDict):
    kind: Literal["status"]
    status: Status
    attempts: int
    note: NotRequired[str]


ProgressEvent = (RunStarted | ChangeToWrite | ModelSwitched | AttemptStarted | CandidatesWritten | Writing | AttemptTested
                 | ReflectionWritten | RunStatus)


def emit(event: ProgressEvent) -> None:
    """Send one progress event to the run's custom stream. A no-op when nobody streams
    "custom", and when called outside a graph run (a node function tested on its own)."""
    try:
        writer = get_stream_writer()
    except RuntimeError:
        return
    writer(event)
