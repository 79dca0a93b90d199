"""Running the graph for the CLI: checkpointed after every step, narrated on the console,
and continued from the last checkpoint when an earlier run of the thread was cut short."""

from __future__ import annotations

import json
import time
from dataclasses import asdict, fields

from langgraph.types import StateSnapshot
from rich.console import Console
from rich.markup import escape

from codeheal.checkpointers import checkpoint_path, open_checkpointer
from codeheal.context import Context
from codeheal.errors import CheckpointError, InputError
from codeheal.forms import choose_form, form_of
from codeheal.loop.builder import build_graph
from codeheal.state import InputState, OutputState
from codeheal.transcript import Transcript

__all__ = ["checkpoint_path", "run_with_progress", "saved_context"]

OUTPUT_KEYS = ("code", "status", "attempts", "reflections", "history")
CONTEXT_KEY = "codeheal_context"
"""Checkpoint metadata key holding the run's Context as JSON, so a resumed run uses the
settings the run started with."""


def run_with_progress(
    request: InputState | None,
    settings: dict[str, object],
    thread_id: str,
    console: Console,
    *,
    checkpointer: str | None = None,
    verbose: bool = False,
) -> OutputState:
    """Run one task on a thread, checkpointing every step, and narrate it on `console`
    (`verbose`: also every prompt, reply and attempt's diff).

    `request` None continues the thread's unfinished run; so does a request for the same
    task and tests (project and test command) when the thread's last run was cut short (its finished attempts and
    reflections are kept, not redone). `settings` are the Context fields the user gave
    explicitly: they always win; a continued run takes the rest from the run it continues,
    and the environment fills what neither names. `checkpointer` is a
    postgresql:// URL or a SQLite path (default: $CODEHEAL_CHECKPOINTER, else the user data dir)."""
    config = {"configurable": {"thread_id": thread_id}}
    with open_checkpointer(checkpointer, must_exist=request is None) as saver:
        graph = build_graph().compile(checkpointer=saver, name="codeheal")
        snapshot = graph.get_state(config)
        resuming = _must_resume(request, snapshot, thread_id)
        context = merged_context(saved_context(snapshot) if resuming else {}, settings)
        config["metadata"] = {CONTEXT_KEY: json.dumps(asdict(context))}
        console.print(f"[dim]thread {thread_id} · model {context.model} · sandbox {context.sandbox} · "
                      f"up to {context.max_attempts} attempts[/dim]")
        narrator = _Narrator(console, context)
        listeners: list = [narrator]
        if verbose:
            transcript = Transcript(console)
            listeners.append(transcript)
            config["callbacks"] = [transcript]
        if resuming:
            narrator.resume(snapshot.values)
        with console.status("") as status:
            narrator.status = status
            for _, update in graph.stream(
                None if resuming else request, config, context=context,
                stream_mode=["updates"], durability="sync",
            ):
                for node, values in update.items():
                    for listener in listeners:
                        listener.on_update(node, values or {})
        values = graph.get_state(config).values
    keys = OUTPUT_KEYS + form_of(values).output_keys
    return OutputState(**{key: values[key] for key in keys})


def saved_context(snapshot: StateSnapshot) -> dict:
    """The Context settings the thread's latest run was started with ({} if unknown)."""
    return json.loads(snapshot.metadata.get(CONTEXT_KEY, "{}")) if snapshot.metadata else {}


def _must_resume(request: InputState | None, snapshot: StateSnapshot, thread_id: str) -> bool:
    """Whether to continue the thread's last run instead of starting a new one."""
    unfinished = bool(snapshot.next)
    if any(task.interrupts for task in snapshot.tasks):
        raise CheckpointError(
            f"thread {thread_id} is paused for a human review, not cut short: answer the review "
            "with Command(resume=...) to continue it (README: Human review)"
        )
    if request is None:
        if not snapshot.values:
            raise CheckpointError(f"no thread {thread_id!r} in this checkpointer: `codeheal threads` lists them")
        if not unfinished:
            values = snapshot.values
            raise CheckpointError(
                f"thread {thread_id} has nothing to resume: its last run ended "
                f"{values.get('status')} after {values.get('attempts')} attempt(s). Start a new run "
                f"on it with `codeheal solve ... --thread {thread_id}` (it keeps the reflections)"
            )
        return True
    if not unfinished:
        return False
    values = snapshot.values
    if not _same_task(values, request):
        raise InputError(
            f"thread {thread_id} has an unfinished run of a different task: finish it with "
            f"`codeheal resume {thread_id}`, or use another --thread"
        )
    return True


def _same_task(values: dict, request: InputState) -> bool:
    """Whether a thread's unfinished run was asked the same task: the same task and tests, or
    (project form) the same project and test command."""
    return all(values.get(key) == request.get(key) for key in choose_form(request).task_keys)


def merged_context(saved: dict, given: dict[str, object]) -> Context:
    """The saved settings of a run, then the ones `given` explicitly; the environment
    supplies only what neither names."""
    known = {f.name for f in fields(Context)}
    return Context(**{**{k: v for k, v in saved.items() if k in known}, **given})


class _Narrator:
    """Turns node updates into progress lines and a live 'what is running' spinner."""

    def __init__(self, console: Console, context: Context) -> None:
        self.console = console
        self.context = context
        self.status = None
        self.attempt = 1
        self.started = time.perf_counter()

    def resume(self, values: dict) -> None:
        self.attempt = (values.get("attempts") or 0) + 1
        self.console.print(
            f"resuming at attempt {self.attempt}: {values.get('attempts') or 0} attempt(s) and "
            f"{len(values.get('reflections') or [])} reflection(s) kept from the checkpoint"
        )

    def _running(self, what: str) -> None:
        if self.status is not None:
            self.status.update(f"attempt {self.attempt} of {self.context.max_attempts}: {what}")

    def on_update(self, node: str, values: dict) -> None:
        if node == "prepare":
            if values.get("workspace"):
                self._running(f"running the tests of the project as it is ({len(values['workspace'])} files)")
            else:
                self._running("testing the given code" if values.get("candidates") else "writing code")
        elif node == "actor":
            usage = values.get("generation") or {}
            tokens = ""
            if usage.get("tokens"):
                tokens = f" ({usage['prompt_tokens']} prompt + {usage['completion_tokens']} completion tokens)"
            self.console.print(f"attempt {self.attempt}: code written in {usage.get('seconds', 0):.1f} s{tokens}")
            self._running("running the tests")
        elif node == "evaluator":
            self._on_evaluation(values)
        elif node == "reflector":
            for lesson in values.get("reflections") or []:  # none when Context.reflect is off
                self.console.print(f"  [cyan]reflection:[/cyan] {escape(lesson)}", soft_wrap=False)
            self._running("writing code")
        elif node == "finish":
            status = values["status"]
            elapsed = time.perf_counter() - self.started
            colour = "green" if status in ("passed", "accepted") else "red"
            self.console.print(f"[{colour}]{status}[/{colour}] after {self.attempt - 1} attempt(s), {elapsed:.1f} s")

    def _on_evaluation(self, values: dict) -> None:
        feedback = values["feedback"]
        record = values["history"][-1]
        mark = "[green]passed[/green]" if feedback["passed"] else "[red]failed[/red]"
        self.console.print(
            f"attempt {record['attempt']}: {mark} {feedback['passed_count']}/{feedback['total']} checks "
            f"in {feedback['seconds']:.2f} s ({feedback['isolation']} sandbox)"
        )
        self.attempt = record["attempt"] + 1
        if not feedback["passed"]:
            self.console.print(f"  [dim]{escape(record['summary'])}[/dim]")
            self._running("reflecting on the failure" if self.context.reflect else "writing code")
