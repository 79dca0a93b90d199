"""Running the graph for the CLI: a SQLite checkpointer on disk and progress on the console."""

from __future__ import annotations

import time
from pathlib import Path

import platformdirs
from langgraph.checkpoint.sqlite import SqliteSaver
from rich.console import Console

from codeheal.context import Context
from codeheal.graph import build_graph
from codeheal.state import InputState, OutputState

OUTPUT_KEYS = ("code", "status", "attempts", "reflections", "history")


def checkpoint_path() -> Path:
    """The CLI's checkpoint database, in the user's data directory."""
    directory = Path(platformdirs.user_data_dir("codeheal"))
    directory.mkdir(parents=True, exist_ok=True)
    return directory / "checkpoints.sqlite"


def run_with_progress(request: InputState, context: Context, thread_id: str, console: Console) -> OutputState:
    """Run one task on a thread, checkpointing every step, and narrate it on `console`."""
    config = {"configurable": {"thread_id": thread_id}}
    console.print(f"[dim]thread {thread_id} · model {context.model} · sandbox {context.sandbox} · "
                  f"up to {context.max_attempts} attempts[/dim]")
    with SqliteSaver.from_conn_string(str(checkpoint_path())) as saver:
        graph = build_graph().compile(checkpointer=saver, name="codeheal")
        narrator = _Narrator(console, context)
        with console.status("") as status:
            narrator.status = status
            for _, update in graph.stream(
                request, config, context=context, stream_mode=["updates"], durability="sync"
            ):
                for node, values in update.items():
                    narrator.on_update(node, values or {})
        values = graph.get_state(config).values
    return OutputState(**{key: values[key] for key in OUTPUT_KEYS})


class _Narrator:
    """Turns node updates into progress lines and a live 'what is running' spinner."""

    def __init__(self, console: Console, context: Context) -> None:
        self.console = console
        self.context = context
        self.status = None
        self.attempt = 1
        self.started = time.perf_counter()

    def _running(self, what: str) -> None:
        if self.status is not None:
            self.status.update(f"attempt {self.attempt} of {self.context.max_attempts}: {what}")

    def on_update(self, node: str, values: dict) -> None:
        if node == "prepare":
            self._running("testing the given code" if values.get("candidate") else "writing code")
        elif node == "actor":
            usage = values.get("generation") or {}
            self.console.print(
                f"attempt {self.attempt}: code written in {usage.get('seconds', 0):.1f} s"
                + (f" ({usage['tokens']} tokens)" if usage.get("tokens") else "")
            )
            self._running("running the tests")
        elif node == "evaluator":
            self._on_evaluation(values)
        elif node == "reflector":
            lesson = (values.get("reflections") or [""])[-1]
            self.console.print(f"  [cyan]reflection:[/cyan] {lesson}", soft_wrap=False)
            self._running("writing code")

    def _on_evaluation(self, values: dict) -> None:
        feedback = values["feedback"]
        record = values["history"][-1]
        mark = "[green]passed[/green]" if feedback["passed"] else "[red]failed[/red]"
        self.console.print(
            f"attempt {record['attempt']}: {mark} {feedback['passed_count']}/{feedback['total']} checks "
            f"in {feedback['seconds']:.2f} s ({feedback['isolation']} sandbox)"
        )
        if not feedback["passed"]:
            self.console.print(f"  [dim]{record['summary']}[/dim]")
        self.attempt = record["attempt"] + 1
        status = values["status"]
        if status == "running":
            self._running("reflecting on the failure")
        else:
            elapsed = time.perf_counter() - self.started
            colour = "green" if status == "passed" else "red"
            self.console.print(f"[{colour}]{status}[/{colour}] after {record['attempt']} attempt(s), {elapsed:.1f} s")
