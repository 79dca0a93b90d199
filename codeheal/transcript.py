"""`-v`: what the model was shown and what it wrote, and each attempt's change as a diff, on the
console beside the progress lines."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from rich.console import Console

from codeheal.forms.project.diff import unified_diff


class Transcript(BaseCallbackHandler):
    """Prints every prompt and reply of the run's model calls (a LangChain callback), and each
    attempt's diff: against the project as it is (`fix`), or against the previous attempt's code."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.workspace: Mapping[str, str] | None = None
        """Project form: the files of the project as it is; None for the module form."""
        self.previous = ""

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        for batch in messages:
            for message in batch:
                self._block(f"prompt: {message.type}", message.text)

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                self._block("reply", generation.text)

    def on_update(self, node: str, values: dict) -> None:
        """A graph update: an attempt once evaluated. (`workspace`, the project's files as they
        are, is set by the runner before the graph runs.)"""
        if node == "evaluator" and values.get("history"):
            record = values["history"][-1]
            if self.workspace is not None:
                diff = unified_diff(self.workspace, record.get("changes") or {}).text
            else:
                diff = "".join(difflib.unified_diff(
                    self.previous.splitlines(keepends=True), record["code"].splitlines(keepends=True),
                    "previous attempt", f"attempt {record['attempt']}",
                ))
                self.previous = record["code"]
            self._block(f"attempt {record['attempt']}: diff", diff or "(no change)")

    def _block(self, title: str, text: str) -> None:
        self.console.rule(f"[dim]{title}[/dim]", align="left", style="dim")
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)
