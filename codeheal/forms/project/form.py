"""The project form (`codeheal fix`, `graph.invoke({"project", "test_command"})`): a project's
failing tests healed by targeted edits of its functions."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import cast

from langchain_core.messages import AIMessage, BaseMessage

from codeheal.context import Context, Policy
from codeheal.errors import InputError, PromptTooLargeError
from codeheal.forms.base import Draw, Form
from codeheal.forms.project.candidate import applied, as_is_steps, repair_steps
from codeheal.forms.project.check_repairs import type_repairs
from codeheal.forms.project.diff import refuse_uncommitted, rooted, unified_diff, write_changes
from codeheal.forms.project.edits import canonical_reply
from codeheal.forms.project.import_slips import import_repairs
from codeheal.forms.project.line_candidates import LINE_END, LineSlot, line_slots
from codeheal.forms.project.mutations import line_mutants
from codeheal.forms.project.prompts import (
    failing_imports,
    project_actor_messages,
    project_reflector_messages,
    project_reply_start,
    slip_messages,
)
from codeheal.forms.project.rewrites import NO_TRAIL, ended, followed, rewrites_to_draw
from codeheal.forms.project.run import (
    CheckCommand,
    ProjectRun,
    files_of,
    run_of,
    scope_pairs,
    scoped,
    started,
)
from codeheal.forms.project.snapshot import git_prefix
from codeheal.forms.project.syntax_slips import Slip, cheap_repairs, region_code, spliced, whole_file_reply
from codeheal.forms.project.job import project_tests
from codeheal.forms.project.task import CHECK_TASK, DEFAULT_TASK, check_executable, load_project, parse_test_command
from codeheal.llm.factory import MAX_TOKENS
from codeheal.rules import (
    MUTATED_LINES,
    REWRITE_SAMPLES,
    RepairPlan,
    repair_plan,
    sampling_temperature,
    screen_budget,
    seconds_left,
)
from codeheal.progress import ChangeToWrite, RunStarted, emit
from codeheal.prompting.parts import CLOSING_FENCE, CODE_FENCE
from codeheal.sandboxes.base import Sandbox
from codeheal.state import (
    AS_IS,
    Attempt,
    Candidate,
    CandidateJob,
    Prepared,
    ScreenPlan,
    State,
    Status,
    TestedCandidate,
)
from codeheal.steps import Steps
from codeheal.tokens import TokenCounter

PROJECT_INPUT = ("project", "test_command", "check_command", "target", "python")
LINE_TOKENS = 96
"""A line candidate's reply: one line of code."""


class ProjectForm(Form):
    """The project read once (its files kept by content key, so every attempt edits the same
    snapshot) and tested as it is before any model call; each reply's corrected definitions
    applied to it and the project's test command run on the changed copy."""

    name = "project"
    run_fields = ("form_run",)
    task_keys = ("project", "test_command", "check_command")
    output_keys = ("diff", "changed", "files_written", "checked")

    def policy_for(self, policy: Policy) -> Policy:
        """A project has one starting point: every retry repairs from the failing tests and is
        shown the failure (always; with a reflection when the policy reflects), no retry is a fresh
        sample, a retry that finds nothing new ends the run, and each retry draws at least
        REWRITE_SAMPLES rewrites. The switches settings/project.SET_BY_FORM names."""
        return dataclasses.replace(
            policy, feedback=True, feedback_when="always", fresh_attempts=0, fresh_start=False, stop_on_repeat=True,
            retry_samples=max(policy.retry_samples, REWRITE_SAMPLES),
        )

    def start(self, state: State, context: Context) -> tuple[dict, RunStarted]:
        task = state.task
        if task is not None and not isinstance(task, str):
            raise InputError(f"task must be a string, got {type(task).__name__}")
        test_command = state.test_command or ""
        check = parse_test_command(state.check_command, "check command") if state.check_command else None
        project = load_project(state.project, test_command or (None if check else ""), target=state.target,
                               python=state.python)
        if context.sandbox == "local":
            for command, what in ((project.command, "test command"), (check, "check command")):
                if command is not None:
                    check_executable(command, project.interpreter, what)
        if state.apply and not state.force:
            tests = project_tests(project.snapshot.files)
            refuse_uncommitted(project.snapshot.root, [p for p in project.snapshot.files if p.endswith(".py") and p not in tests])
        run = started(state.project, test_command, project, CheckCommand(text=state.check_command, argv=list(check.argv))
                      if check is not None and state.check_command else None)
        left_out = [f"{s.path} ({s.reason})" for s in sorted(
            project.snapshot.skipped, key=lambda s: ("secret" not in s.reason and "key" not in s.reason, s.path))]
        return {
            "task": task if task and task.strip() else (DEFAULT_TASK if test_command else CHECK_TASK),
            "form_run": run,
            "left_out": left_out,
            "candidates": [AS_IS],
            "diff": "",
            "changed": [],
            "files_written": [],
        }, RunStarted(kind="run_started", first="project", files=len(files_of(run)), left_out=left_out)

    def is_retry(self, state: State) -> bool:
        # Attempt 1 only tests the project as it is: the first written repair is greedy.
        return bool(state.written)

    def actor_prompt(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> tuple[list[BaseMessage], tuple[str, ...]]:
        messages = project_actor_messages(state, context, MAX_TOKENS, retry=self.is_retry(state), counter=counter)
        if not prefill:
            return messages, ()
        start, stop = project_reply_start(state)
        return [*messages, AIMessage(start)], stop

    def draws(
        self, state: State, context: Context, *, fresh: bool, prefill: bool, counter: TokenCounter
    ) -> list[Draw]:
        """A repair attempt's model calls, as the policy divides them (rules.repair_plan):
        whole-function rewrites from the repair prompt (as many as the rewrites so far leave:
        rewrites.py), then, when replies can be prefilled,
        line-level candidates for the next suspicious lines: the same prompt, the reply started
        with the function up to the line, one line written (at `temperature`, then the rest of
        the line's samples at `retry_temperature`)."""
        rules = self.policy_for(context.policy)
        plan = repair_plan(state, rules)
        retry = self.is_retry(state)
        slip = slip_of(run_of(state))
        if slip is not None:
            return [slip_draw(state, slip, prefill=prefill, samples=plan.rewrites if retry else 1,
                              temperature=sampling_temperature(state, rules, retry=retry))]
        slots = repair_line_slots(run_of(state), plan.lines.stop)[plan.lines.start:] if prefill else []
        rewrites = drawn_rewrites(state, plan, slots)
        messages, stop = self.actor_prompt(state, context, fresh=fresh, prefill=prefill, counter=counter)
        draws = [Draw(messages, stop, samples=rewrites, candidate=canonical_reply,
                      temperature=sampling_temperature(state, rules, retry=retry))] if rewrites else []
        prompt = messages[:-1] if prefill else messages  # without the rewrite's start
        for slot in slots:
            fitted = slot_prompt(state, context, prompt, slot, retry=retry, counter=counter)
            if fitted is None:
                continue  # the function up to the line leaves the prompt no room: the rewrite covers it
            # the line's likeliest replacement, then samples for variety
            for samples, temperature in ((1, rules.temperature), (plan.line_samples - 1, rules.retry_temperature)):
                if samples:
                    draws.append(Draw(
                        [*fitted, AIMessage(slot.before)], LINE_END, samples=samples, temperature=temperature,
                        candidate=line_candidate(slot), max_tokens=LINE_TOKENS,
                    ))
        return draws

    def prepare(self, state: State, candidate: Candidate) -> Prepared:
        """The change a reply makes, as applied (replies that differ only in formatting the
        realignment drops are one change; a reply that cannot be applied, by the reason), its
        changed lines as its test will count them, and the change itself, which its test reads."""
        if candidate is AS_IS:
            return Prepared(key="", size=0)
        run = run_of(state)
        change = applied(run, candidate)
        if change["refused"] is not None and not change["changed"]:  # could not be applied
            return Prepared(key=f"refused: {change['refused']}", size=sys.maxsize, change=change)
        key = hashlib.sha256(json.dumps(change["files"], sort_keys=True).encode()).hexdigest()
        size = sys.maxsize if change["refused"] is not None else unified_diff(files_of(run), change["files"]).changed_lines
        return Prepared(key=key, size=size, change=change)

    def reflector_prompt(
        self, state: State, context: Context, reply_tokens: int, counter: TokenCounter
    ) -> list[BaseMessage]:
        return project_reflector_messages(state, context, reply_tokens, counter)

    def test_steps(self, sandbox: Sandbox, job: CandidateJob, context: Context) -> Steps[TestedCandidate]:
        if job["candidate"] is AS_IS:
            return (yield from as_is_steps(sandbox, job, context))
        return (yield from repair_steps(sandbox, job, context))

    def record(
        self, state: State, best: TestedCandidate, tested: list[TestedCandidate], context: Context
    ) -> tuple[dict, dict]:
        """The attempt's change (its diff "" when it made none: the project as it is, a reply
        that was not applied). Once the project as it is was tested, the run's record holds
        what it found (its failures, which every repair prompt shows; the tests every repair
        must run and pass; its time, the base of the repairs' time limit; the suspicious
        lines) and what follows from it, once: the repair's scope, the command a repair runs
        first, and the screen's candidates (`screen`). After a repair the model wrote, the
        record holds how its rewrites ended (rewrites.py)."""
        checked = {"checked": best["feedback"]["checked"]} if "checked" in best.get("feedback", {}) else {}
        attempt = ({"changes": best["changes"], "changed": best.get("changed") or [], "diff": best.get("diff") or "",
                    **checked} if "changes" in best else {"diff": ""})
        found = [t["form_run"] for t in tested if "form_run" in t]
        if not found:
            return attempt, ({"form_run": after_rewrites(state, context)} if state.model else {})
        run = scoped(cast(ProjectRun, found[0]))
        candidates, tries = screen(run, context)
        return attempt, {"form_run": run, "screen": candidates, "screen_plan": screen_plan(state, run, tries)}

    def outcome(self, state: State, best: Attempt | None, status: Status) -> tuple[dict, str | None]:
        """The best attempt's change as a diff, written into the project when the input asks
        for it and the tests pass; the run's input and the snapshot cleared from the thread.
        Raises DirtyTreeError (nothing written) when a file to write has uncommitted changes
        (unless `force`) or changed since it was read."""
        changes = (best or {}).get("changes") or {}
        written = []
        # Paths from the repository's top, not the DIR given: `git apply` and CI annotations
        # in a monorepo land on the right file.
        diff = rooted((best or {}).get("diff") or "", git_prefix(Path(state.project)))
        if state.apply and status == "passed" and changes:
            emit(ChangeToWrite(kind="change_to_write", diff=diff))
            paths = write_changes(state.project, changes, originals=files_of(run_of(state)), force=bool(state.force))
            written = [str(path) for path in paths]
        return {
            "diff": diff,
            "changed": list((best or {}).get("changed") or []),
            "files_written": written,
            "checked": (best or {}).get("checked") or "",
            **dict.fromkeys(PROJECT_INPUT),
            "form_run": None,
            "left_out": None,
            "apply": False,
            "force": False,
        }, end_note(best, status)


def end_note(best: Attempt | None, status: Status) -> str | None:
    """A heal's regression check: what ran beyond the test command."""
    if status == "passed" and best and best.get("checked"):
        return f"checked beyond the test command: {best['checked']}"
    return None


def screen(run: ProjectRun, context: Context) -> tuple[list[Candidate], str]:
    """The screen's candidates, tested before the first model call: when a project module does
    not parse, its cheap repairs (syntax_slips.py); when an import of the project fails, the
    misspelt name respelt (import_slips.py); else the cheap repairs of the checker's type
    errors (check_repairs.py, with --check), then one-line mutations of the
    MUTATED_LINES most suspicious lines of the project as it is (project/mutations.py), at most
    ProjectSettings.mutants, likeliest operator class first and within a class the more
    suspicious line first; each a reply like a line candidate's. None without suspicious lines,
    and none at all when `mutants` is 0 (the screen off). With what they try, in words."""
    as_is = run["as_is"]
    slip = slip_of(run)
    if not context.project.mutants:
        return [], ""  # the screen is off
    if slip is not None:
        text = files_of(run)[slip["file"]]
        return ([whole_file_reply(slip["file"], repaired) for repaired in cheap_repairs(text)],
                f"one-edit repairs of the {slip['exception']} in {slip['file']} line {slip['line']}")
    if as_is is not None and (imports := failing_imports(as_is["failures"], files_of(run))):
        respelt = import_repairs(as_is["failures"], imports, files_of(run))
        if respelt:
            return respelt, "respellings of the failing import"
    typed = type_repairs(as_is.get("diagnostics", []), files_of(run), context.project.mutants) if as_is else []
    typed_tries = "cheap repairs of the checker's type errors"
    if run["command"] is None or not (as_is is not None and as_is["suspicious"]):
        # a checker alone: no test's coverage ranks the lines a mutant would change
        return typed, typed_tries if typed else ""
    ranked = [
        (mutant.rank, place, slot.reply(mutant.line))
        for place, slot in enumerate(repair_line_slots(run, MUTATED_LINES))
        for mutant in line_mutants(slot.original, slot.names, slot.ingredients)
    ]
    mutants = [reply for _, _, reply in sorted(ranked, key=lambda m: m[:2])]
    tries = "one-line mutations of the suspicious lines"
    return [*typed, *mutants][:context.project.mutants], f"{typed_tries}, then {tries}" if typed else tries


def screen_plan(state: State, run: ProjectRun, tries: str) -> ScreenPlan | None:
    """The screen's time, from the project's own test time (its run as it is) and the run's time
    left now, as it starts (rules.screen_budget); None without a deadline."""
    as_is, left = run["as_is"], seconds_left(state)
    budget = screen_budget(as_is["seconds"] if as_is else None, left)
    if budget is None or left is None:
        return None
    return ScreenPlan(tries=tries, seconds=budget, ends_with_left=left - budget)


def slip_of(run: ProjectRun) -> Slip | None:
    """The project module that does not parse, found when the project as it is was tested."""
    as_is = run["as_is"]
    return as_is.get("slip") if as_is is not None else None


def slip_draw(state: State, slip: Slip, *, prefill: bool, samples: int, temperature: float) -> Draw:
    """A repair of a module that does not parse: the model corrects the region around the
    parser's line, which is spliced back into the module (a whole-file reply)."""
    text = files_of(run_of(state))[slip["file"]]
    feedback = state.feedback if state.written else None
    messages = slip_messages(state, slip, feedback)

    def candidate(reply: str) -> str:
        return whole_file_reply(slip["file"], spliced(text, slip["line"], region_code(reply)))

    if prefill:
        return Draw([*messages, AIMessage(CODE_FENCE)], (CLOSING_FENCE,), samples=samples, temperature=temperature,
                    candidate=candidate)
    return Draw(messages, (), samples=samples, temperature=temperature, candidate=candidate)


def slot_prompt(
    state: State, context: Context, prompt: list[BaseMessage], slot: LineSlot, *, retry: bool, counter: TokenCounter,
) -> list[BaseMessage] | None:
    """A line candidate's prompt: the repair prompt, fitted again with room for its prefill
    (the function up to the line, which may be long) and the line; None when even the least
    repair context leaves no room."""
    reply = counter.tokens(slot.before) + LINE_TOKENS
    if reply <= MAX_TOKENS:
        return prompt  # fitted already, with room for a whole rewrite
    try:
        return project_actor_messages(state, context, reply, retry=retry, counter=counter, strict=True)
    except PromptTooLargeError:
        return None


def drawn_rewrites(state: State, plan: RepairPlan, slots: list[LineSlot]) -> int:
    """How many whole-function rewrites a repair attempt of `plan` draws, after the rewrites so
    far (rewrites.rewrites_to_draw), beside the line candidates of `slots`."""
    return rewrites_to_draw(run_of(state).get("rewrites") or NO_TRAIL, plan.rewrites, lines_left=bool(slots))


def after_rewrites(state: State, context: Context) -> ProjectRun:
    """The run's record once the model's repair attempt in `state` was tested: its rewrites (the
    first candidates it drew, as many as `draws` drew) followed into the trail, until it ended."""
    run = run_of(state)
    trail = run.get("rewrites") or NO_TRAIL
    if ended(trail):
        return run
    drawn = dataclasses.replace(state, written=(state.written or 1) - 1)  # the attempt's plan, as it was drawn
    plan = repair_plan(drawn, ProjectForm().policy_for(context.policy))
    prepared = {p["code"]: p for p in state.prepared}
    rewrites = state.candidates[:rewrites_to_draw(trail, plan.rewrites, lines_left=False)]
    changes = [prepared[code]["change"] if "change" in prepared.get(code, {}) else applied(run, code)
               for code in rewrites if code is not AS_IS]
    return {**run, "rewrites": followed(trail, changes)}


def line_candidate(slot: LineSlot) -> Callable[[str], str]:
    """A line's reply as a candidate: spliced back into its function (a reply without code is
    kept: applying it fails, saying why)."""
    return lambda reply: canonical_reply(slot.reply(reply))


def repair_line_slots(run: ProjectRun, limit: int) -> list[LineSlot]:
    """The first `limit` suspicious lines of the project as it is that a line candidate may
    change: statements of the functions the repair may change (the run's scope)."""
    as_is = run["as_is"]
    return line_slots(as_is["suspicious"] if as_is else [], files_of(run), scope=scope_pairs(run["scope"]), limit=limit)
