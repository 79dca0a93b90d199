"""Running the graph for the CLI: checkpointed after every step, narrated on the console,
and continued from the last checkpoint when an earlier run of the thread was cut short."""

from __future__ import annotations

import json
import queue
import signal
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.types import Command, StateSnapshot
from rich.console import Console

from codeheal.checkpointers import checkpoint_path, open_checkpointer, open_store
from codeheal.context import SETTINGS, Context, resolve
from codeheal.errors import CheckpointError, InputError, RunInterrupted
from codeheal.forms.choice import choose_form, form_of
from codeheal.interrupts import WRITING
from codeheal.llm.discovery import arrival
from codeheal.llm.factory import is_local
from codeheal.loop.builder import build_graph
from codeheal.rules import deadline_from_now, ladder, reflects
from codeheal.printable import markup_escaped as escape
from codeheal.progress import AttemptTested, ProgressEvent
from codeheal.prompting.model_call import breakdown
from codeheal.state import Breakdown, InputState, RunReport, RunTotals
from codeheal.threads import REFUSED, is_unfinished, run_status
from codeheal.transcript import Transcript

__all__ = ["checkpoint_path", "run_with_progress", "saved_settings"]

OUTPUT_KEYS = ("form", "code", "status", "attempts", "reflections", "history")
LEFT_OUT_SHOWN = 8
CONTEXT_KEY = "codeheal_context"
"""Checkpoint metadata key holding, as JSON, the settings the run's user set (by flat name:
context.Resolved.explicit), so that a resumed run keeps them; every other setting it takes
from the defaults and the environment of its day."""
POLL_S = 0.1
"""How often the waiting main thread looks up from the run's events (a signal is handled then)."""
WRITE_WAIT_S = 30.0
"""The longest an interrupt waits for a change being written into the project to be complete."""


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread as Ctrl-C is."""


def run_with_progress(
    request: InputState | None,
    settings: Mapping[str, object],
    thread_id: str,
    console: Console,
    *,
    file_settings: Mapping[str, object] | None = None,
    checkpointer: str | None = None,
    verbose: bool = False,
    apply: bool = False,
    force: bool = False,
) -> RunReport:
    """Run one task on a thread, checkpointing every step, and narrate it on `console`
    (`verbose`: also every prompt, reply and attempt's diff).

    `request` None continues the thread's unfinished run; so does a request for the same
    task and tests (project and test command) when the thread's last run was cut short (its finished attempts and
    reflections are kept, not redone). `settings` are the settings the user gave as flags,
    `file_settings` those of pyproject.toml's [tool.codeheal] (by flat name, context.SETTINGS): layered
    by context.resolve under the settings a continued run saved and over the environment;
    settings that do not apply to the run's form raise ConfigError. `checkpointer` is a
    postgresql:// URL or a SQLite path (default: $CODEHEAL_CHECKPOINTER, else the user data dir);
    the graph's store is opened beside it (checkpointers.open_store), so what a run learns of
    what pays per model (codeheal.learning) reaches the next run.
    `apply` (with `request` None, a fix thread): the continued run writes its change as `fix
    --apply` does, over uncommitted changes with `force`; InputError for a solve thread.

    A new run starts at the graph's prepare, as every caller's does: bad input raises
    InputError before any model call, and the thread is left as it was (no checkpoint of
    the refused run). SIGINT or SIGTERM raises RunInterrupted at once, leaving the run's thread
    and the checkpointer it writes through as they are: the caller ends the process."""
    config = {"configurable": {"thread_id": thread_id}}
    with ExitStack() as held:
        saver = held.enter_context(open_checkpointer(checkpointer, must_exist=request is None))
        store = held.enter_context(open_store(checkpointer))
        graph = build_graph().compile(checkpointer=saver, store=store, name="codeheal")
        snapshot = graph.get_state(config)
        resuming = _must_resume(request, snapshot, saver.get_tuple(config), thread_id)
        form = form_of(snapshot.values["form"]) if resuming else choose_form((request or {}).get("project"))
        if apply and form.name != "project":
            raise InputError(f"thread {thread_id} is a solve run: --apply writes the change of a fix run")
        resolved = resolve(settings, config=file_settings, saved=saved_settings(snapshot) if resuming else None,
                           form=form.name)
        context = resolved.context
        config["metadata"] = {CONTEXT_KEY: json.dumps(resolved.explicit)}
        models = ", then ".join(ladder(context))
        console.print(f"[dim]thread {thread_id} · model {escape(models)} · policy {context.policy.name} · "
                      f"sandbox {context.sandbox} · up to {plural(context.max_attempts, 'attempt')}[/dim]", soft_wrap=True)
        narrator = _Narrator(console, context, reflects=reflects(form.policy_for(context.policy)))
        transcript = Transcript(console) if verbose else None
        calls = _ModelCalls()
        config["callbacks"] = [calls] if transcript is None else [calls, transcript]
        with console.status("") as status:
            narrator.status = status
            if resuming:
                narrator.resume(snapshot.values)
            modes = ["custom", "updates"] if transcript is not None else ["custom"]
            # Command(update=...) sets them on the state with no step of its own: the run goes on at its
            # step, its time counted afresh (the time it stood still was not its own).
            resumed = Command(update={"deadline": deadline_from_now(context),
                                      **({"apply": True, "force": force} if apply else {})})
            # subgraphs: the transcript reads the evaluator's updates inside each attempt.
            stream = graph.stream(resumed if resuming else request, config, context=context,
                                  stream_mode=modes, durability="sync", subgraphs=True)
            try:
                for _, mode, payload in _abandonable(stream, thread_id):
                    if mode == "custom":
                        narrator.on_event(payload)
                    elif transcript is not None:
                        for node, values in payload.items():
                            transcript.on_update(node, values or {})
            except (KeyboardInterrupt, RunInterrupted) as exc:  # RunInterrupted: from _abandonable
                # The abandoned run's thread may be writing a checkpoint: its connections are left
                # open, not closed under it, and the process ends now (cli._exit_now).
                held.pop_all()
                if isinstance(exc, RunInterrupted):
                    raise
                raise _interrupted(exc, thread_id) from None
            except InputError:
                if not resuming and _refused_at_prepare(graph, config):
                    _forget_refused_run(graph, saver, snapshot, thread_id)
                raise
        values = graph.get_state(config).values
    keys = OUTPUT_KEYS + form_of(values["form"]).output_keys
    totals = narrator.totals(values, calls.count)
    console.print(f"[dim]{totals_line(totals, resumed=resuming)}[/dim]", soft_wrap=True)  # one line, however long
    report = RunReport(**{key: values[key] for key in keys}, totals=totals)
    if narrator.note:
        report["note"] = narrator.note
    return report


def totals_line(totals: RunTotals, *, resumed: bool = False) -> str:
    """The run's last progress line: time, model calls, tokens, and what healed it. A resumed
    run's time and calls are this process's, its tokens the whole run's (the checkpoint's
    attempts): `resumed` says so on the line."""
    model = f" {totals['healed_by_model']}" if totals["healed_by_model"] else ""
    healed = {"model": f"; healed by the model{model}", "screen": "; healed by the screen (no model call)",
              "nothing": "; nothing to heal"}.get(totals["healed_by"] or "", "")
    tokens = f"{totals['prompt_tokens']} prompt + {totals['completion_tokens']} completion tokens"
    calls = plural(totals["model_calls"], "model call")
    if resumed:
        return f"{totals['seconds']:.1f} s and {calls} since the resume; {tokens} over the whole run{healed}"
    return f"{totals['seconds']:.1f} s, {calls}, {tokens}{healed}"


def plural(count: int, noun: str) -> str:
    """`count` and `noun`, plural unless the count is 1: "1 attempt", "3 attempts"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


class _ModelCalls(BaseCallbackHandler):
    """Counts the run's requests to the model (a LangChain callback)."""

    def __init__(self) -> None:
        self.count = 0

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        self.count += 1


def _abandonable(stream: Iterator, thread_id: str) -> Iterator:
    """The items of `stream`, produced in a daemon thread, so that a signal stops the run at
    once: the main thread only waits on them, and on SIGINT or SIGTERM leaves the call in
    flight (a model reply, a test run) behind, raising RunInterrupted. Every finished step is
    already checkpointed (durability "sync"); the step cut short is redone on resume."""
    items: queue.Queue = queue.Queue()
    end = object()

    def produce() -> None:
        try:
            for item in stream:
                items.put(item)
        except BaseException as exc:  # handed to the main thread, which raises it
            items.put((end, exc))
        else:
            items.put((end, None))

    with _sigterm_as_interrupt():
        try:
            threading.Thread(target=produce, name="codeheal-run", daemon=True).start()
            while True:
                try:
                    item = items.get(timeout=POLL_S)
                except queue.Empty:
                    continue
                if isinstance(item, tuple) and item and item[0] is end:
                    if item[1] is not None:
                        raise item[1]
                    return
                yield item
        except KeyboardInterrupt as exc:
            raise _interrupted(exc, thread_id) from None


def _interrupted(exc: KeyboardInterrupt, thread_id: str) -> RunInterrupted:
    """The run's interruption, once no change is being written into the project (the lock is
    kept: the run's thread is abandoned and the process ends)."""
    WRITING.acquire(timeout=WRITE_WAIT_S)
    return RunInterrupted(thread_id, signal.SIGTERM if isinstance(exc, _Terminated) else signal.SIGINT)


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises _Terminated in the main thread while the run goes on (elsewhere, as before)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum: int, frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _refused_at_prepare(graph, config: dict) -> bool:
    """Whether the thread's run stopped at its first node (prepare refused the input)."""
    return graph.get_state(config).next == ("prepare",)


def _forget_refused_run(graph, saver, before: StateSnapshot, thread_id: str) -> None:
    """Leave the thread as it was before a run prepare refused: a new thread is deleted; one
    with earlier runs gets its last checkpoint back as the latest."""
    if before.values:
        graph.update_state(before.config, None, as_node="__copy__")
    else:
        saver.delete_thread(thread_id)


def saved_settings(snapshot: StateSnapshot) -> dict[str, object]:
    """The settings the user of the thread's latest run set ({} if unknown), by flat name;
    a setting this version no longer has is dropped."""
    saved = json.loads(snapshot.metadata.get(CONTEXT_KEY, "{}")) if snapshot.metadata else {}
    return {name: value for name, value in saved.items() if name in SETTINGS}


def _must_resume(request: InputState | None, snapshot: StateSnapshot, saved: CheckpointTuple | None,
                 thread_id: str) -> bool:
    """Whether to continue the thread's last run (`snapshot`, its checkpoint `saved`) instead of
    starting a new one."""
    unfinished = is_unfinished(saved)
    if any(task.interrupts for task in snapshot.tasks):
        raise CheckpointError(
            f"thread {thread_id} is paused for a human review, not cut short: answer the review "
            "with Command(resume=...) to continue it (docs/library.md: Human review)"
        )
    if request is None:
        if not snapshot.values:
            raise CheckpointError(f"no thread {thread_id!r} in this checkpointer: `codeheal threads` lists them")
        if run_status(saved) == REFUSED:
            raise CheckpointError(
                f"thread {thread_id} has nothing to resume: its run was refused (bad input): start a new run "
                f"on it with `codeheal solve ...` or `codeheal fix ...` and `--thread {thread_id}`"
            )
        if not unfinished:
            values = snapshot.values
            raise CheckpointError(
                f"thread {thread_id} has nothing to resume: its last run ended "
                f"{values.get('status')} after {plural(values.get('attempts') or 0, 'attempt')}. Start a new run "
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
    return all(values.get(key) == request.get(key) for key in choose_form(request.get("project")).task_keys)


class _Narrator:
    """Turns the run's progress events (codeheal.progress) into progress lines and a live
    'what is running' spinner."""

    def __init__(self, console: Console, context: Context, *, reflects: bool) -> None:
        self.console = console
        self.context = context
        self.reflects = reflects
        self.status = None
        self.attempt = 1
        self.max_attempts = self.context.max_attempts
        self.started = time.perf_counter()
        self.doing = _Doing(self.started, self.started + context.deadline_s)
        self.given_first = False
        """The run's first attempt tests what it was given (the project, the starting code)."""
        self.screened: set[int] = set()
        """Attempts whose candidates were one-line mutations, written without the model."""
        self.note: str | None = None
        """The run's end note (the status event's), once it ended with one."""

    def totals(self, values: dict, model_calls: int) -> RunTotals:
        """What the run cost and what healed it, from its final state."""
        history = values.get("history") or []
        healed_by = None
        if values.get("status") in ("passed", "accepted") and history:
            attempt = history[-1]["attempt"]
            healed_by = ("screen" if attempt in self.screened
                         else "nothing" if attempt == 1 and self.given_first else "model")
        seconds = time.perf_counter() - self.started
        return RunTotals(
            prompt_tokens=sum(a.get("prompt_tokens", 0) for a in history),
            completion_tokens=sum(a.get("completion_tokens", 0) for a in history),
            model_calls=model_calls,
            seconds=round(seconds, 2),
            healed_by=healed_by,
            healed_by_model=history[-1].get("model") if healed_by == "model" else None,
            breakdown=_with_model_server(breakdown(history, seconds), self.context),
        )

    def resume(self, values: dict) -> None:
        self.attempt = (values.get("attempts") or 0) + 1
        self.console.print(
            f"resuming at attempt {self.attempt}: {values.get('attempts') or 0} attempt(s) and "
            f"{len(values.get('reflections') or [])} reflection(s) kept from the checkpoint"
        )

    def _running(self, what: str) -> None:
        self.doing.what = f"attempt {self.attempt} of {self.max_attempts}: {what}"
        if self.status is not None:
            self.status.update(self.doing)

    def on_event(self, event: ProgressEvent) -> None:
        """Narrate one progress event."""
        if event["kind"] == "run_started":
            self.given_first = event["first"] != "model"
            self._running({
                "project": f"running the tests of the project as it is ({event['files']} files)",
                "starting_code": "testing the given code",
                "model": "writing code",
            }[event["first"]])
            if event.get("task_checks"):
                self.console.print(f"[dim]also checking {event['task_checks']} example(s) from the task text "
                                   "(--no-task-examples: your tests alone)[/dim]")
            if event.get("left_out"):
                shown = "; ".join(event["left_out"][:LEFT_OUT_SHOWN])
                more = len(event["left_out"]) - LEFT_OUT_SHOWN
                self.console.print(f"[dim]left out of the project's copy: {escape(shown)}"
                                   f"{f'; and {more} more' if more > 0 else ''}[/dim]")
        elif event["kind"] == "model_switched":
            why = "was stuck" if event["after"] == "stuck" else "wrote its share of the attempts"
            self.console.print(f"attempt {event['attempt']}: switching to {escape(event['model'])} "
                               f"({escape(event['previous'])} {why})")
            self._running(f"{event['model']} writing code")
        elif event["kind"] == "attempt_started":
            self.max_attempts = event["max_attempts"]  # one more once the screen runs
            if "seconds_left" in event:  # the run's own clock: a resumed run's deadline is its own
                self.doing.ends = time.perf_counter() + event["seconds_left"]
        elif event["kind"] == "change_to_write":
            self.console.print(f"the change to write into the project:\n{escape(event['diff'])}", highlight=False)
        elif event["kind"] == "candidates_written":
            if event.get("mutants"):
                self.screened.add(event["attempt"])
                tries = event.get("screen", "one-line mutations of the suspicious lines")
                within = f", within {event['screen_seconds']:g} s of the {self.doing.left()}" if "screen_seconds" in event else ""
                self.console.print(f"attempt {self.attempt}: screen: {event['mutants']} {escape(tries)} to test "
                                   f"(no model call{within})")
                self._running(f"screen: {tries}")
                return
            tokens = ""
            if event["prompt_tokens"] + event["completion_tokens"]:
                tokens = f" ({event['prompt_tokens']} prompt + {event['completion_tokens']} completion tokens)"
            self.console.print(f"attempt {self.attempt}: code written in {event['seconds']:.1f} s{tokens}")
            self._running("running the tests")
        elif event["kind"] == "writing":
            rate = event["completion_tokens"] / event["seconds"] if event["seconds"] else 0.0
            self._running(f"writing code, {plural(event['completion_tokens'], 'token')} so far ({rate:.1f} a second)")
        elif event["kind"] == "tests_result":
            self._on_tested(event)
        elif event["kind"] == "reflection_written":
            self.console.print(f"  [cyan]reflection:[/cyan] {escape(event['reflection'])}", soft_wrap=False)
            self._running("writing code")
        elif event["kind"] == "status":
            status = event["status"]
            elapsed = time.perf_counter() - self.started
            colour = "green" if status in ("passed", "accepted") else "red"
            self.console.print(f"[{colour}]{status}[/{colour}] after {event['attempts']} attempt(s), {elapsed:.1f} s")
            if status == "deadline":
                self.console.print(f"  [dim]the run's time ({self.context.deadline_s:g} s) ran out: its best attempt so "
                                   "far is reported (--deadline SECONDS gives a run more)[/dim]")
            if event.get("note"):
                self.note = event["note"]
                self.console.print(f"  [dim]{escape(event['note'])}[/dim]")

    def _on_tested(self, event: AttemptTested) -> None:
        self.attempt = event["attempt"] + 1
        untested = ""
        if event.get("untested"):
            whose = "the screen's" if event["attempt"] in self.screened else "the run's"
            untested = f"; {event['untested']} left untested ({whose} time was up)"
        self.console.print(f"attempt {event['attempt']}: {tested_line(event)}{untested}; {self.doing.left()}",
                           soft_wrap=True)
        if not event["passed"]:
            self.console.print(f"  [dim]{escape(event['summary'])}[/dim]")
            self._running("reflecting on the failure" if self.reflects else "writing code")


def _with_model_server(spent: Breakdown, context: Context) -> Breakdown:
    """The breakdown, with whether the run found the resident model server warm or started it,
    and the seconds that took, when its model is an embedded one that server serves (the
    process's first arrival at it: a CLI run is a process of its own)."""
    came = arrival() if is_local(context) else None
    if came is not None:
        spent["model_server"], spent["model_start_seconds"] = came.how, came.seconds
    return spent


class _Doing:
    """The spinner's text: what runs now, the run's elapsed time and the time left of its
    deadline (read at each refresh)."""

    def __init__(self, started: float, ends: float) -> None:
        self.started = started
        self.ends = ends
        """When the run's deadline falls (time.perf_counter())."""
        self.what = ""

    def left(self) -> str:
        """The time left of the run's deadline, in words."""
        return f"{max(self.ends - time.perf_counter(), 0.0):.0f} s left"

    def __rich__(self) -> str:
        return f"{escape(self.what)} [dim]· {time.perf_counter() - self.started:.0f} s · {self.left()}[/dim]"


def tested_line(event: AttemptTested) -> str:
    """What an attempt's test showed, in words: how many checks passed of how many, and how
    long its tests ran (a time, beside the limit each run had); a reply refused before any
    test ran says so."""
    if not event["passed"] and event["total"] == 0 and not event["sandbox_seconds"]:
        return "[red]refused[/red] (no test ran)"
    passed, total = event["passed_count"], event["total"]
    if event["passed"]:
        counts = f"[green]passed[/green], {passed} of {total} checks"
    else:
        counts = f"[red]failed[/red], {passed} of {total} passed ({total - passed} failed)"
    limit = f", limit {event['time_limit_s']:g} s a run" if "time_limit_s" in event else ""
    # Parallel candidates' runs overlap: their sum is sandbox time, not the attempt's wall time.
    if "candidates" in event:
        timing = f"; the best of {event['candidates']} candidates, whose tests ran {event['sandbox_seconds']:.1f} s in all"
    else:
        timing = f"; tests ran {event['sandbox_seconds']:.1f} s"
    judged = f"; judged in the test process ({escape(event['in_test_process'])})" if "in_test_process" in event else ""
    return f"{counts}{timing} ({event['isolation']} sandbox{limit}){judged}"
