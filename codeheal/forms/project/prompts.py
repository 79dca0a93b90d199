"""The prompts of the project form (`codeheal fix`), fitted to the model's context window.

The actor sees the failure of the project as it is (the failing tests with their inputs, the
test source, the project functions on the failing path with line numbers, part of the test
data: `repair_context`), the reflections so far and the last attempt's outcome, and answers with
corrected definitions. Every prompt is budgeted: the window (fitted_window: halved for each
prompt the server refused) minus the reply's tokens, minus the fixed parts; what is left goes to
the repair context, which trims itself to fit. When even its least does not fit, the reflections,
the changes tried and the last outcome go, and then the least prompt is sent as it is: a
refusal by the server is a failed attempt (model_call.refused_candidate), never the run's end.
A line candidate's prompt is fitted strictly: PromptTooLargeError, and the line is left out."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from codeheal.context import Context
from codeheal.errors import PromptTooLargeError
from codeheal.forms.project.checker import types_used
from codeheal.forms.project.edits import Target, import_at
from codeheal.forms.project.repair_context import repair_context
from codeheal.forms.project.test_paths import is_test_file
from codeheal.forms.project.rewrites import NO_TRAIL, retry_note
from codeheal.forms.project.syntax_slips import Slip, region
from codeheal.forms.project.run import AsIs, ProjectRun, files_of, run_of, targets_of
from codeheal.prompting.model_call import REFUSED, is_refused
from codeheal.prompting.model_window import MARGIN_TOKENS, fitted_window
from codeheal.prompting.parts import CLOSING_FENCE, CODE_FENCE, format_feedback
from codeheal.state import CheckFailure, Feedback, State, SuspiciousLine
from codeheal.tokens import BYTES_PER_TOKEN, ESTIMATE, TokenCounter

FIX_SYSTEM = (
    "You are an expert Python programmer fixing a bug in an existing project whose tests fail. "
    "Find the defect in the project's code shown below and fix it with the smallest change; "
    "never edit the tests."
)
"""The system message of both the actor's and the reflector's prompt: the two share their
prefix (system, task, test command, repair context) up to the role's own tail, so a local
server that cached the reflection's prompt reads only the repair's tail (issue 34: read each
prompt once). Each role's instructions close its prompt."""
FIX_REPLY = (
    "Reply with one ```python block holding the corrected definition of each function you "
    "change (the whole def; a method inside its class line), with the file's path "
    "(`# path/to/file.py`) as the block's first line. Do not send unchanged functions, new "
    "functions, tests or example usage."
)
FIX_IMPORT_REPLY = (
    "The failure is raised by the import at {path} line {line} (`{code}`): reply with the corrected "
    "import line, and any function(s) to correct, in one ```python block whose first line is the "
    "file's path (`# path/to/file.py`)."
)
FIX_LESSON_ASK = (
    "Do not write code yet. Diagnose the bug: explain in two to four sentences what is wrong and "
    "what exactly to change. Be specific (name the function, the line, the case)."
)
FIX_CHECK = (
    "The checker's errors count as failures: fix the code so that it reports none (convert the value, "
    "correct the annotation, check for None), and never silence it (no `# type: ignore`, `# noqa`, "
    "`cast` or `Any`)."
)
"""What a repair under --check is told, before what to reply."""
LAST_OUTCOME_SHARE = 6
"""The last attempt's outcome gets at most 1/LAST_OUTCOME_SHARE of the window."""


def project_actor_messages(
    state: State, context: Context, reply_tokens: int, *, retry: bool, counter: TokenCounter = ESTIMATE,
    strict: bool = False,
) -> list[BaseMessage]:
    """The actor's prompt for a run of the project form, fitted as `counter` counts tokens;
    `retry`: a change was tried before; `strict`: see fix_actor_messages."""
    run = run_of(state)
    as_is = _as_is(state)
    history = state.history
    return fix_actor_messages(
        task=state.task,
        test_command=run["test_command"],
        checker=checker_of(run),
        types=types_used(as_is.get("diagnostics", []), files_of(run)),
        failures=as_is["failures"],
        files=files_of(run),
        targets=targets_of(run),
        reflections=state.reflections[-context.policy.memory:] if context.policy.memory else [],
        last_feedback=state.feedback if retry and not is_refused(history[-1]["code"]) else None,
        refused=tried_outcomes(state) if retry else [],
        window=fitted_window(context, history),
        reply_tokens=reply_tokens,
        counter=counter,
        suspicious=as_is["suspicious"],
        strict=strict,
        parse_retry=retry_note(run.get("rewrites") or NO_TRAIL, primary_name(run)) if retry else None,
    )


FIX_SLIP_REPLY = (
    "Reply with one ```python block holding lines {first}-{last} of {path} with the syntax error "
    "corrected and nothing else changed: the same lines, in the same order, with their indentation, "
    "without line numbers."
)


def slip_messages(state: State, slip: Slip, last_feedback: Feedback | None) -> list[BaseMessage]:
    """The actor's prompt for a project module that does not parse: the parser's message and
    the region around its line (numbered in the prompt, sent back without numbers), and the
    last attempt's outcome on a retry."""
    text = files_of(run_of(state))[slip["file"]]
    first, last = region(text, slip["line"])
    lines = text.splitlines()
    numbered = "\n".join(f"{n:>4} | {lines[n - 1]}" for n in range(first, last + 1))
    parts = [
        f"The tests cannot run: {slip['file']} does not parse.\n{slip['exception']} at line {slip['line']}: "
        + slip["message"],
        f"Lines {first}-{last} of {slip['file']}:\n{CODE_FENCE}{numbered}{CLOSING_FENCE}",
    ]
    if last_feedback is not None:
        parts.append(f"The last correction tried:\n{format_feedback(last_feedback)}")
    parts.append(FIX_SLIP_REPLY.format(first=first, last=last, path=slip["file"]))
    return [SystemMessage(FIX_SYSTEM), HumanMessage("\n\n".join(parts))]


def primary_name(run: ProjectRun) -> str | None:
    """The function a repair most likely changes, as `path::name`; None when not known."""
    primary = run["scope"]["primary"] if run["scope"] else None
    named = DEF_NAME.search(primary["header"]) if primary else None
    return f"{primary['path']}::{named.group(1)}" if primary and named else None


DEF_NAME = re.compile(r"def\s+(\w+)")


def _as_is(state: State) -> AsIs:
    as_is = run_of(state)["as_is"]
    assert as_is is not None, "the repair prompts follow the test of the project as it is"
    return as_is


TRIED_SHOWN = 5
"""The repair prompt names at most this many of the distinct outcomes of earlier changes."""
TRIED_CHARS = 200


def tried_outcomes(state: State) -> list[str]:
    """How the changes tried so far ended, each outcome once, the latest last (the project as
    it is, key "", is not a change; nor is a refused prompt's candidate)."""
    outcomes = dict.fromkeys(t["summary"] for t in state.tried if t["key"] and REFUSED not in t["summary"])
    return [_cut_chars(summary, TRIED_CHARS) for summary in list(outcomes)[-TRIED_SHOWN:]]


FUNCTION_END = ("\ndef ", "\nasync def ", "\nclass ", "\n@", "\nif __name__")
"""After a prefilled `def` line, the next top-level statement ends the function's body."""


def project_reply_start(state: State) -> tuple[str, tuple[str, ...]]:
    """How a prefilled project-form reply starts, and where it ends: the code fence, then the
    path and the `def` line of the function the repair most likely changes; the model writes
    its body, and generation stops at the closing fence or the next top-level statement. Under
    --check the `def` lines are left to the model: an annotation may be what is wrong."""
    run = run_of(state)
    scope = run["scope"]
    primary = scope["primary"] if scope is not None else None
    if primary is None:
        return CODE_FENCE, (CLOSING_FENCE,)
    header = "" if "check" in run else primary["header"]
    return f"{CODE_FENCE}# {primary['path']}\n{header}", (CLOSING_FENCE, *FUNCTION_END)


def project_reflector_messages(
    state: State, context: Context, reply_tokens: int, counter: TokenCounter = ESTIMATE,
) -> list[BaseMessage]:
    """The reflector's prompt for a run of the project form, fitted as `counter` counts tokens."""
    run = run_of(state)
    as_is = _as_is(state)
    return fix_reflector_messages(
        task=state.task,
        test_command=run["test_command"],
        checker=checker_of(run),
        failures=as_is["failures"],
        files=files_of(run),
        targets=targets_of(run),
        code=state.history[-1]["code"],
        feedback=state.feedback,
        window=fitted_window(context, state.history),
        reply_tokens=reply_tokens,
        counter=counter,
        suspicious=as_is["suspicious"],
    )


def fix_actor_messages(
    *,
    task: str,
    test_command: str,
    checker: str | None = None,
    types: str = "",
    failures: Sequence[CheckFailure],
    files: Mapping[str, str],
    targets: Sequence[Target],
    reflections: list[str],
    last_feedback: Feedback | None,
    refused: Sequence[str],
    window: int,
    reply_tokens: int,
    counter: TokenCounter = ESTIMATE,
    suspicious: Sequence[SuspiciousLine] = (),
    strict: bool = True,
    parse_retry: str | None = None,
) -> list[BaseMessage]:
    """The actor's prompt in the project form, in at most `window` tokens with room for a
    reply of `reply_tokens`. `failures`: those of the project as it is; `last_feedback`: the
    outcome of the last change tried (None on the first repair); `checker`: the --check
    command, whose errors are among `failures`; `types`: the project's classes they involve,
    outlined (checker.types_used); `refused`: how the changes
    tried so far ended (they are not tried again); `suspicious`: the lines ranked most
    suspicious, listed in the repair context; `parse_retry`: what the retry of a reply that did
    not parse is told (rewrites.retry_note). When even the least repair context does not fit,
    the reflections, the changes tried and the last outcome are left out in that order; then
    `strict` raises PromptTooLargeError, else the least prompt is returned over the window
    (the model's server judges it: a prompt it refuses is a failed attempt, and the next
    one is fitted to a smaller window: fitted_window)."""
    tail = []
    if reflections:
        tail.append("Lessons from earlier failed attempts:\n" + "\n".join(f"- {r.strip()}" for r in reflections))
    if refused:
        tail.append("Already tried and refused or failed, never send these again:\n"
                    + "\n".join(f"- {outcome}" for outcome in refused))
    if last_feedback is not None:
        outcome = _cut(format_feedback(last_feedback, max_failures=3), window // LAST_OUTCOME_SHARE)
        tail.append(f"Your previous change failed:\n{outcome}\nSend a different correction.")
    if parse_retry:
        tail.append(parse_retry)
    if types:
        tail.append(f"Types the checker's errors involve:\n{CODE_FENCE}{types}{CLOSING_FENCE}")
    if checker:
        tail.append(FIX_CHECK)
    failing = failing_imports(failures, files)
    if failing:
        path, line, code = failing[0]
        tail.append(FIX_IMPORT_REPLY.format(path=path, line=line, code=code))
    else:
        tail.append(FIX_REPLY)
    return _fitted(_head(task, test_command, checker), tail, failures, files, targets, window, reply_tokens, counter,
                   suspicious, strict=strict)


def _head(task: str, test_command: str, checker: str | None) -> list[str]:
    """What both roles' prompts open with, before the repair context."""
    return [f"Task:\n{task.strip()}", *([f"Test command: {test_command}"] if test_command else []),
            *([f"Checker (must report no error): {checker}"] if checker else [])]


def checker_of(run: ProjectRun) -> str | None:
    """The run's --check command, as the user wrote it; None without one."""
    return run["check"]["text"] if "check" in run else None


def failing_imports(failures: Sequence[CheckFailure], files: Mapping[str, str]) -> list[tuple[str, int, str]]:
    """The one-line top-level imports of project modules (not tests) that the failures' tracebacks
    pass through, innermost first, as (path, line, the import): an import error a reply may fix
    by sending the import corrected (edits.py)."""
    found = []
    for failure in failures:
        for frame in reversed(failure["frames"]):
            path = frame["file"]
            if path in files and not is_test_file(path) and (code := import_at(files[path], frame["line"])):
                found.append((path, frame["line"], code))
    return list(dict.fromkeys(found))


def fix_reflector_messages(
    *,
    task: str,
    test_command: str,
    checker: str | None = None,
    failures: Sequence[CheckFailure],
    files: Mapping[str, str],
    targets: Sequence[Target],
    code: str,
    feedback: Feedback,
    window: int,
    reply_tokens: int,
    counter: TokenCounter = ESTIMATE,
    suspicious: Sequence[SuspiciousLine] = (),
) -> list[BaseMessage]:
    """The reflector's prompt in the project form: the actor's prefix (the failure and code of
    the project as it is, with the lines ranked most suspicious), then the change tested and its
    outcome (none before the first repair), then what to write (FIX_LESSON_ASK)."""
    if code.strip() and not is_refused(code):
        outcome = _cut(format_feedback(feedback, max_failures=3), window // LAST_OUTCOME_SHARE)
        change = _cut(code.strip(), window // LAST_OUTCOME_SHARE)
        tail = [f"The change that was tested (corrected definitions):\n{change}", f"Its test results:\n{outcome}"]
    else:
        tail = ["No change has been tried yet: say which function is wrong and how to fix it."]
    return _fitted(_head(task, test_command, checker), [*tail, FIX_LESSON_ASK], failures, files, targets, window,
                   reply_tokens, counter, suspicious, strict=False)


def _fitted(
    head: list[str], tail: list[str], failures: Sequence[CheckFailure], files: Mapping[str, str],
    targets: Sequence[Target], window: int, reply_tokens: int, counter: TokenCounter,
    suspicious: Sequence[SuspiciousLine], *, strict: bool,
) -> list[BaseMessage]:
    """System and user message: `head`, the repair context in what the window leaves, `tail`
    (tokens as `counter` counts them). When even the least repair context does not fit, the
    tail's parts but its last (what to write) are left out, first to last; then `strict`
    raises PromptTooLargeError, else the least prompt is returned over the window."""
    kept = list(tail)
    while True:
        fixed = counter.prompt_tokens([SystemMessage(FIX_SYSTEM), HumanMessage("\n\n".join(head + kept))])
        budget = window - reply_tokens - MARGIN_TOKENS - fixed
        try:
            if budget <= 0:
                raise PromptTooLargeError(
                    f"the task text and the last outcome need about {fixed:,} tokens, leaving nothing of the "
                    f"model's {window:,}-token context for the code: shorten --task, or use a model with a "
                    "larger context (--context-size)"
                )
            context = repair_context(failures, files, budget, targets=targets, count=counter.tokens,
                                     suspicious=suspicious)
        except PromptTooLargeError:
            if len(kept) > 1:
                kept = kept[1:]
                continue
            if strict:
                raise
            context = repair_context(failures, files, 0, targets=targets, count=counter.tokens,
                                     suspicious=suspicious, least=True)
        return [SystemMessage(FIX_SYSTEM), HumanMessage("\n\n".join([*head, context, *kept]))]


def _cut(text: str, tokens: int) -> str:
    limit = max(tokens * BYTES_PER_TOKEN, 0)
    return text if len(text) <= limit else text[:limit].rstrip() + "\n...[cut]"


def _cut_chars(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[:limit].rstrip() + " ..."
