"""The module form's prompts (`codeheal solve`): the actor's, in its two styles, and the
reflector's, built by pure functions from the task, the tests and the last outcome.

Each is fitted to the model's window (model_window.first_fitting): what a prompt can spare goes
first (the actor's: the reflections, the failed attempt's code, then its failure; the reflector's:
the code, then all failures but the first); the task and the tests are never cut, and a prompt
whose least does not fit goes as it is, for the server to judge: a refusal is a failed attempt
saying so, and the run's next prompt is fitted to half the window."""

from __future__ import annotations

import ast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codeheal.fences import python_blocks
from codeheal.prompting.model_call import is_refused
from codeheal.prompting.model_window import first_fitting
from codeheal.prompting.parts import CODE_FENCE, format_feedback
from codeheal.state import Feedback, State
from codeheal.syntax import parse_code
from codeheal.tokens import TokenCounter

EXCERPT_CONTEXT = 3

ACTOR_SYSTEM = (
    "You are an expert Python programmer. Write a complete, self-contained Python module "
    "that solves the task and passes the tests. Reply with exactly one ```python code block "
    "containing the module (imports, helper functions and the solution). Do not include "
    "the tests, example usage or explanations inside the code block."
)
STUB_IN_REPLY = "(The function's signature and docstring start your reply below: continue it.)"

REFLECT_ASK = (
    "Do not write code yet. From the test results and the code above, explain in two to four "
    "sentences what went wrong and what exactly to change in the next attempt. Be specific "
    "(name the function, the line, the case)."
)
"""What closes the reflector's prompt. It shares the actor's system message, task and tests,
so a local server that cached the first attempt's prompt reads only the failure and the code,
and the retry after the reflection only what follows that opening (issue 34: read each prompt
once). Of the presets, only self_heal writes this reflection in the module form."""


def fitted_actor_messages(
    *,
    window: int,
    reply_tokens: int,
    counter: TokenCounter,
    task: str,
    tests: str,
    entry_point: str | None,
    reflections: list[str],
    last_code: str | None,
    last_feedback: Feedback | None,
    memory: int = 5,
    prefill: bool = False,
) -> list[BaseMessage]:
    """actor_messages in `window` tokens with room for a reply of `reply_tokens`: without the
    reflections, then without the failed attempt's code, then without its failure, until it fits
    (first_fitting). A failed attempt whose prompt the server refused is no failure shown."""
    if is_refused(last_code):
        last_code, last_feedback = None, None
    shown = (last_code, last_feedback)
    remembered = memory if reflections else 0
    prompts = (
        actor_messages(task=task, tests=tests, entry_point=entry_point, reflections=reflections, memory=kept,
                       last_code=code, last_feedback=feedback, prefill=prefill)
        for kept, (code, feedback) in [(remembered, shown), (0, shown), (0, ("", last_feedback)), (0, (None, None))]
    )
    return first_fitting(prompts, window, reply_tokens, counter)


def actor_messages(
    *,
    task: str,
    tests: str,
    entry_point: str | None,
    reflections: list[str],
    last_code: str | None,
    last_feedback: Feedback | None,
    memory: int = 5,
    prefill: bool = False,
) -> list[BaseMessage]:
    """The actor's prompt: task, tests, the `memory` latest reflections, and the last attempt's
    failure.

    With `prefill`, the reply is started for the model (a final assistant message a llama.cpp
    server continues): the code fence, and the task's function stub when it shows one, so
    the model writes only the body instead of copying the signature and docstring back."""
    parts = _opening(task, tests, entry_point)
    if reflections and memory:
        listed = "\n".join(f"- {r.strip()}" for r in reflections[-memory:])
        parts.append(f"Lessons from earlier failed attempts:\n{listed}")
    if last_code is not None and last_feedback is not None:
        # Small models copy a previous attempt shown to them unless told plainly that it is
        # wrong and which results it got wrong, before they see it.
        parts.append(f"Your previous attempt failed these checks:\n{format_feedback(last_feedback)}")
        if last_code.strip():
            parts.append(f"The failing attempt (do not repeat it):\n```python\n{last_code.strip()}\n```")
        parts.append(
            "Write a new, corrected module that passes every check. Change the logic that "
            "produced the wrong results above: the same code fails the same way again."
        )
    messages: list[BaseMessage] = [SystemMessage(ACTOR_SYSTEM), HumanMessage("\n\n".join(parts))]
    if prefill:
        messages.append(AIMessage(CODE_FENCE + (function_stub(task) or "")))
    return messages


def _opening(task: str, tests: str, entry_point: str | None) -> list[str]:
    """What the actor's and the reflector's prompts open with: the task and the tests."""
    parts = [f"Task:\n{task.strip()}"]
    if entry_point:
        parts.append(f"The tests call `{entry_point}`; define it at module level.")
    parts.append(f"Tests (the module is imported as `solution`):\n```python\n{tests.strip()}\n```")
    return parts


def without_stub_block(task: str) -> str:
    """The task with the code block that holds its function stub replaced by a pointer to
    the reply, where a prefill puts the stub: the model reads it once instead of twice."""
    for match in reversed(python_blocks(task)):
        if function_stub(match.group(0)) is not None:
            return task[: match.start()] + STUB_IN_REPLY + task[match.end():]
    return task


def function_stub(task: str) -> str | None:
    """The code a task shows up to the end of its last function's docstring, when that
    function has no body yet (only a docstring, `pass` or `...`); else None."""
    for block in reversed([match.group(2) for match in python_blocks(task)]):
        try:
            module = parse_code(block)
        except SyntaxError:
            continue
        functions = [n for n in module.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        if not functions or functions[-1] is not module.body[-1]:
            continue
        body = functions[-1].body
        if not all(_is_placeholder(statement) for statement in body):
            continue
        docstring = body[0] if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str) else None
        end = docstring.end_lineno if docstring else body[0].lineno - 1
        return "\n".join(block.splitlines()[:end]) + "\n"
    return None


def _is_placeholder(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and (
        statement.value.value is Ellipsis or isinstance(statement.value.value, str)
    )


def fitted_reflector_messages(
    *, window: int, reply_tokens: int, counter: TokenCounter, task: str, tests: str, entry_point: str | None,
    code: str, feedback: Feedback,
) -> list[BaseMessage]:
    """reflector_messages in `window` tokens with room for a reply of `reply_tokens`: without
    the code, then with the first failure only, until it fits (first_fitting)."""
    prompts = (
        reflector_messages(task=task, tests=tests, entry_point=entry_point, code=shown, feedback=feedback, failures=most)
        for shown, most in [(code, 5), ("", 5), ("", 1)]
    )
    return first_fitting(prompts, window, reply_tokens, counter)


def reflector_messages(
    *, task: str, tests: str, entry_point: str | None, code: str, feedback: Feedback, failures: int = 5
) -> list[BaseMessage]:
    """The reflector's prompt: the actor's opening, the failure (at most `failures` failed
    checks), the numbered code around each failing line, and what to write (REFLECT_ASK)."""
    parts = [*_opening(task, tests, entry_point),
             f"Test results of a failed attempt:\n{format_feedback(feedback, max_failures=failures)}"]
    lines = sorted({f["line"] for f in feedback["failures"] if f["line"]})
    if code.strip():
        parts.append("The failed attempt (solution.py):\n" + numbered_excerpt(code, lines))
    parts.append(REFLECT_ASK)
    return [SystemMessage(ACTOR_SYSTEM), HumanMessage("\n\n".join(parts))]


def numbered_excerpt(code: str, lines: list[int], context: int = EXCERPT_CONTEXT) -> str:
    """The code with line numbers: all of it when short, else the lines around `lines`."""
    source = code.splitlines()
    if len(source) <= 40 or not lines:
        keep = range(1, len(source) + 1)
    else:
        wanted = {n for line in lines for n in range(line - context, line + context + 1)}
        keep = [n for n in range(1, len(source) + 1) if n in wanted]
    out, previous = [], 0
    for n in keep:
        if previous and n != previous + 1:
            out.append("   ...")
        marker = ">>" if n in lines else "  "
        out.append(f"{marker}{n:4d} | {source[n - 1]}")
        previous = n
    return "\n".join(out)


def tested_function(state: State) -> str | None:
    """The function the tests exercise: the input's entry_point, else the task's stub's."""
    if state.entry_point:
        return state.entry_point
    stub = function_stub(state.task or "")
    functions = [n for n in parse_code(stub).body if isinstance(n, ast.FunctionDef)] if stub else []
    return functions[-1].name if functions else None
