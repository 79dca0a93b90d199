"""Runs of the graph for the editor, on the event loop and cancellable at once (cancelling
the task kills the sandbox's test process and drops the model call): the project's tests
as they are (attempt 1 of a fix run, no model call), and a heal (a whole fix run).

The model and every other setting come as for `codeheal fix`: pyproject.toml's
[tool.codeheal], over the environment, over the defaults; the server keeps no model of its
own."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codeheal.config_file import load_config
from codeheal.context import Context, resolve
from codeheal.loop.builder import build_graph
from codeheal.lsp.options import ServerOptions
from codeheal.progress import ProgressEvent
from codeheal.rules import best_attempt
from codeheal.state import Attempt, CheckFailure

AS_IS_ONLY = {"max_attempts": 1, "mutants": 0}
"""A fix run that tests the project as it is and stops: attempt 1 makes no model call."""


@dataclass(frozen=True)
class Project:
    """A folder the editor has open, as `codeheal fix` would run it."""

    root: Path
    test_command: str
    settings: dict[str, object]
    """pyproject.toml's [tool.codeheal] settings for `fix`, by flat name."""

    def request(self, target: str | None = None) -> dict:
        return {"project": str(self.root), "test_command": self.test_command, "target": target}

    def context(self, given: dict[str, object] | None = None) -> Context:
        return resolve(given, config=self.settings, form="project").context


def project_of(root: Path, options: ServerOptions) -> Project:
    """The project at `root`: its test command from [tool.codeheal.fix], else the editor's.
    ConfigError for a pyproject.toml `codeheal fix` would refuse."""
    config = load_config(root, command="fix")
    return Project(root, config.fix.get("test_command") or options.test_command, config.settings)


@dataclass(frozen=True)
class TestRun:
    """The project's tests as they are."""

    passed: bool
    failures: list[CheckFailure]
    error: str | None
    """Why no test could be judged (an import crash, a timeout, no test collected)."""
    executed: dict[str, list[str]]
    """Project-relative path -> the functions the failing tests executed, by their line
    coverage (forms/project/executed.py); empty when none was recorded."""


async def run_tests(project: Project) -> TestRun:
    """Run the project's test command in the sandbox, once, with no model call."""
    output, executed = await _final_output(project, project.context(AS_IS_ONLY), None)
    feedback = output.get("feedback") or {}
    passed = output.get("status") == "passed"
    return TestRun(passed, [] if passed else list(feedback.get("failures") or []),
                   None if passed else feedback.get("error"), executed)


@dataclass(frozen=True)
class Healed:
    """A heal's outcome: the files its change rewrites (project-relative path -> new text),
    empty when the tests passed as they were or no change healed them."""

    status: str
    changes: dict[str, str]
    summary: str
    """The last attempt's outcome, in words."""
    best: Attempt | None = None
    """When no change healed the tests: the attempt with a change that passed the most of
    them (rules.best_attempt among those that changed something), if any passed one."""


async def heal(project: Project, on_event: Callable[[ProgressEvent], None], target: str | None = None) -> Healed:
    """A fix run of the project (nothing written to it), of `target` (`FILE::FUNC`) alone when
    given; `on_event` sees its progress."""
    output, _ = await _final_output(project, project.context(), on_event, target)
    history: list[Attempt] = list(output.get("history") or [])
    summary = history[-1]["summary"] if history else "no attempt ran"
    if output.get("status") == "passed":
        return Healed("passed", dict(best_attempt(history).get("changes") or {}), summary)
    changed = [attempt for attempt in history if attempt.get("changes")]
    best = best_attempt(changed) if changed else None
    return Healed(output.get("status") or "failed", {}, summary, best if best and best["passed_count"] else None)


async def _final_output(
    project: Project, context: Context, on_event: Callable[[ProgressEvent], None] | None, target: str | None = None,
) -> tuple[dict, dict[str, list[str]]]:
    """The run's last streamed values: a plain dict of its channels, as every stream and
    checkpoint gives them (not a State); and the functions the failing tests of the project
    as it is executed (its run's record, which the run drops before it ends)."""
    graph = await asyncio.to_thread(lambda: build_graph().compile(name="codeheal"))  # the editor's loop never waits
    final: dict = {}
    executed: dict[str, list[str]] = {}
    async for mode, payload in graph.astream(project.request(target), context=context, stream_mode=["custom", "values"]):
        if mode == "values":
            final = payload
            executed = dict(((payload.get("form_run") or {}).get("as_is") or {}).get("executed") or executed)
        elif on_event is not None:
            on_event(payload)
    return final, executed
