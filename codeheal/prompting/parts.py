"""What every form's prompts share: the code fence a reply is written in, a test outcome as
the model reads it, and a reflection checked against the failure it explains."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage

from codeheal.evaluation.feedback import FRAMES_HEAD
from codeheal.state import Feedback
from codeheal.tokens import message_text

CODE_FENCE = "```python\n"
CLOSING_FENCE = "\n```"
"""A reply prefilled with CODE_FENCE is complete at the first CLOSING_FENCE: generation stops there."""


def format_feedback(feedback: Feedback, max_failures: int = 5) -> str:
    """The failure as a model should read it: counts, then each failed check."""
    out = [f"{feedback['passed_count']} of {feedback['total']} checks passed."]
    if feedback["error"]:
        out.append(feedback["error"])
    for failure in feedback["failures"][:max_failures]:
        out.append(f"- {failure['test']}: {failure['exception']}: {failure['message']}".rstrip(": "))
        if failure["expected"] is not None:
            out.append(f"  expected {failure['expected']}, got {failure['actual']}")
        for i, frame in enumerate(failure["frames"]):
            if i == FRAMES_HEAD and failure.get("frames_left_out"):
                out.append(f"  ... {failure['frames_left_out']} more frames ...")
            out.append(f"  at {frame['file']} line {frame['line']} in {frame['function']}: {frame['source']}")
    for note in feedback.get("lint", []):
        out.append(f"- static check, solution.py {note}")
    hidden = len(feedback["failures"]) - max_failures
    if hidden > 0:
        out.append(f"... and {hidden} more failed checks.")
    if feedback["stdout"].strip() and not feedback["passed"]:
        out.append("stdout (end):\n" + feedback["stdout"].strip()[-800:])
    if feedback["output_truncated"]:
        out.append("(output was cut: the program printed too much)")
    return "\n".join(out)


EXCEPTION_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Exit|Interrupt)\b")
"""How an exception type is named: ValueError, KeyError, SystemExit (a reflection is judged by these)."""


def unfounded(reflection: str, shown: Sequence[BaseMessage]) -> list[str]:
    """The exception types `reflection` names that appear nowhere in the prompt it was written
    from (`shown`: the failure it explains, the code and tests): a reflection that contradicts the
    failure, dropped rather than shown to the next attempt."""
    prompt = "\n".join(message_text(message) for message in shown)
    return [name for name in dict.fromkeys(EXCEPTION_NAME.findall(reflection)) if name not in prompt]
