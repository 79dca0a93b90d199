"""The prompt for generated inputs (nodes/selection.py): new calls of the tested function,
written by the model from the task, on which the candidates that pass the user's tests are
run and compared. Inputs only: small models predict outputs badly, and agreement between
candidates needs no expected value."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codeheal.prompting.parts import CODE_FENCE

INPUTS_SYSTEM = (
    "You write test inputs for a Python function from its description. Reply with one "
    "```python code block of calls of the function only, one per line, with literal arguments."
)


def inputs_messages(*, task: str, entry_point: str, count: int, prefill: bool = False) -> list[BaseMessage]:
    """The prompt for generated inputs: `count` calls of `entry_point` on inputs the task's
    examples do not show, edge cases included."""
    ask = (
        f"Task:\n{task.strip()}\n\nWrite {count} different calls of `{entry_point}` on valid inputs the "
        f"examples above do not use, edge cases included, each on one line as\n{entry_point}(...)"
    )
    messages: list[BaseMessage] = [SystemMessage(INPUTS_SYSTEM), HumanMessage(ask)]
    if prefill:
        messages.append(AIMessage(f"{CODE_FENCE}{entry_point}("))
    return messages
