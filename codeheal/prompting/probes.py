"""The prompt for generated checks (nodes/selection.py): new asserts of the tested function,
written by the model from the task when the user's tests are too weak to decide."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codeheal.prompting.parts import CODE_FENCE

PROBE_SYSTEM = (
    "You write test cases for a Python function from its description. Reply with one "
    "```python code block of assert lines only, one per line, each comparing a call of the "
    "function with its expected value."
)


def probe_messages(*, task: str, entry_point: str, count: int, prefill: bool = False) -> list[BaseMessage]:
    """The prompt for generated checks: `count` new asserts of `entry_point` from the task,
    on inputs its examples do not show, edge cases included."""
    ask = (
        f"Task:\n{task.strip()}\n\nWrite {count} different checks of `{entry_point}` on inputs the "
        f"examples above do not use, edge cases included, each on one line as\n"
        f"assert {entry_point}(...) == expected"
    )
    messages: list[BaseMessage] = [SystemMessage(PROBE_SYSTEM), HumanMessage(ask)]
    if prefill:
        messages.append(AIMessage(f"{CODE_FENCE}assert {entry_point}("))
    return messages
