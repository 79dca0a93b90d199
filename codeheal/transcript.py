"""`-v`: what the model was shown and what it wrote, and each attempt's change as a diff, on the
console beside the progress lines."""

from __future__ import annotations

import difflib
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from rich.console import Console

from codeheal.printable import escaped
from codeheal.state import Attempt


class Transcript(BaseCallbackHandler):
    """Prints every prompt and reply of the run's model calls (a LangChain callback), and each
    attempt's diff: the one it recorded, against the project as it is (`fix`), or else its code
    against the previous attempt's."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.previous: Attempt | None = None

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        for batch in messages:
            for message in batch:
                self._block(f"prompt: {message.type}", message.text)

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                self._block("reply", generation.text)

    def on_update(self, node: str, values: dict) -> None:
        """A graph update: an attempt once evaluated."""
        if node == "evaluator" and values.get("history"):
            record = values["history"][-1]
            diff = record["diff"] if "diff" in record else code_diff(record, self.previous)
            self.previous = record
            self._block(f"attempt {record['attempt']}: diff", diff or "(no change)")

    def _block(self, title: str, text: str) -> None:
        self.console.rule(f"[dim]{title}[/dim]", align="left", style="dim")
        self.console.print(escaped(text), markup=False, highlight=False, soft_wrap=True)


def code_diff(attempt: Attempt, previous: Attempt | None) -> str:
    """An attempt's code against the previous attempt's, as a unified diff."""
    return "".join(difflib.unified_diff(
        (previous["code"] if previous else "").splitlines(keepends=True), attempt["code"].splitlines(keepends=True),
        "previous attempt", f"attempt {attempt['attempt']}",
    ))
