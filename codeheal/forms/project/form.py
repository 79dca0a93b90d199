"""The project form (`codeheal fix`, `graph.invoke({"project", "test_command"})`): a project's
failing tests healed by targeted edits of its functions."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping

from langchain_core.messages import AIMessage, BaseMessage

from codeheal.context import Context, Policy
from codeheal.errors import EditRejected, InputError
from codeheal.forms.project.candidate import (
    applied_edit,
    as_is_steps,
    project_evaluation_steps,
)
from codeheal.forms.base import Draw, Form
from codeheal.llm.factory import MAX_TOKENS
from codeheal.policy import MUTATED_LINES, REWRITE_SAMPLES, repair_plan, sampling_temperature
from codeheal.progress import ChangeToWrite, RunStarted, emit
from codeheal.forms.project.diff import unified_diff, write_changes
from codeheal.forms.project.edits import canonical_reply
from codeheal.forms.project.line_candidates import LINE_END, LineSlot, line_slots
from codeheal.forms.project.mutations import line_mutants
from codeheal.forms.project.repair_context import repair_scope
from codeheal.forms.project.task import DEFAULT_TASK, load_project
from codeheal.forms.project.workspace_store import keep, workspace_of
from codeheal.forms.project.prompts import (
    project_actor_messages,
    project_reflector_messages,
    project_reply_start,
    project_targets,
    run_failures,
)
from codeheal.sandboxes.base import Sandbox
from codeheal.state import (
    AS_IT_IS,
    Attempt,
    Candidate,
    CandidateJob,
    ChangedDefinition,
    State,
    Status,
    TestedCandidate,
)
from codeheal.steps import Steps
from codeheal.tokens import TokenCounter

PROJECT_INPUT = ("project", "test_command", "target", "python")
AS_IS_FIELDS = ("repair_failures", "baseline_tests", "failing_tests", "as_is_seconds", "suspicious")
"""What the run of the project as it is gives every later repair (ProjectForm.run_update)."""
LINE_TOKENS = 96
"""A line candidate's reply: one line of code."""


class ProjectForm(Form):
    """The project read once (its files kept by content key, so every attempt edits the same
    snapshot) and tested as it is before any model call; each reply's corrected definitions
    applied to it and the project's test command run on the changed copy."""

    name = "project"
    run_fields = (*PROJECT_INPUT, "workspace_key", "interpreter", "repair_failures", "baseline_tests", "failing_tests",
                  "as_is_seconds")
    task_keys = ("project", "test_command")
    output_keys = ("diff", "changed", "files_written")

    def policy_for(self, policy: Policy) -> Policy:
        """A project has one starting point: every retry repairs from the failing tests and is
        shown the failure (always; with a lesson when the policy reflects), no retry is a fresh
        sample, a retry that finds nothing new ends the run, and each retry draws at least
        REWRITE_SAMPLES rewrites. The switches forms/project/settings.SET_BY_FORM names."""
        return dataclasses.replace(
            policy, feedback=True, feedback_when="always", fresh_attempts=0, fresh_start=False, stop_on_repeat=True,
            retry_samples=max(policy.retry_samples, REWRITE_SAMPLES),
        )

    def start(self, state: State) -> dict:
        task = state.get("task")
        if task is not None and not isinstance(task, str):
            raise InputError(f"task must be a string, got {type(task).__name__}")
        project = load_project(
            state["project"], state.get("test_command") or "", target=state.get("target"), python=state.get("python"),
        )
        return {
            "task": task if task and task.strip() else DEFAULT_TASK,
            "workspace_key": keep(project.snapshot.files),
            "left_out": [f"{s.path} ({s.reason})" for s in sorted(
                project.snapshot.skipped, key=lambda s: ("secret" not in s.reason and "key" not in s.reason, s.path))],
            "interpreter": project.interpreter,
            "candidates": [AS_IT_IS],
            "repair_failures": None,
            "baseline_tests": None,
            "failing_tests": None,
            "as_is_seconds": None,
            "suspicious": None,
            "diff": "",
            "changed": [],
            "files_written": [],
        }

    def run_started(self, run: dict) -> RunStarted:
        return RunStarted(kind="run_started", first="project", files=len(workspace_of(run)),
                          left_out=run.get("left_out") or [])

    def is_retry(self, state: State) -> bool:
        # Attempt 1 only tests the project as it is: the first written repair is greedy.
        return bool(state.get("written"))

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
        """A repair attempt's model calls, as the policy divides them (policy.repair_plan):
        whole-function rewrites from the repair prompt, then, when replies can be prefilled,
        line-level candidates for the next suspicious lines: the same prompt, the reply started
        with the function up to the line, one line written (at `temperature`, then the rest of
        the line's samples at `retry_temperature`)."""
        rules = self.policy_for(context.policy)
        plan = repair_plan(state, rules)
        retry = self.is_retry(state)
        messages, stop = self.actor_prompt(state, context, fresh=fresh, prefill=prefill, counter=counter)
        draws = [Draw(messages, stop, samples=plan.rewrites, candidate=self.candidate,
                      temperature=sampling_temperature(state, rules, retry=retry))]
        if not prefill:
            return draws
        prompt = messages[:-1]  # without the rewrite's start
        for slot in repair_line_slots(state, plan.lines.stop)[plan.lines.start:]:
            # the line's likeliest replacement, then samples for variety
            for samples, temperature in ((1, rules.temperature), (plan.line_samples - 1, rules.retry_temperature)):
                if samples:
                    draws.append(Draw(
                        [*prompt, AIMessage(slot.before)], LINE_END, samples=samples, temperature=temperature,
                        candidate=self._line_candidate(slot), max_tokens=LINE_TOKENS,
                    ))
        return draws

    def screens_next(self, state: State, context: Context) -> bool:
        return bool(context.project.mutants and state.get("suspicious") and not state.get("screened")
                    and not state.get("written"))

    def screen(self, state: State, context: Context) -> list[Candidate]:
        """Before the first model call: one-line mutations of the MUTATED_LINES most suspicious
        lines (project/mutations.py), at most ProjectSettings.mutants, likeliest operator class first
        and within a class the more suspicious line first; each a reply like a line candidate's."""
        if not self.screens_next(state, context):
            return []
        ranked = [
            (mutant.rank, place, slot.reply(mutant.line))
            for place, slot in enumerate(repair_line_slots(state, MUTATED_LINES))
            for mutant in line_mutants(slot.original, slot.names, slot.ingredients)
        ]
        return [reply for _, _, reply in sorted(ranked, key=lambda m: m[:2])[:context.project.mutants]]

    def _line_candidate(self, slot: LineSlot):
        return lambda reply: self.candidate(slot.reply(reply))

    def candidate(self, reply: str) -> str:
        # A reply without code is kept: applying it fails, saying why.
        return canonical_reply(reply)

    def change_size(self, tested: TestedCandidate) -> int:
        return tested.get("changed_lines", 0)

    def candidate_key(self, state: State, candidate: Candidate) -> str:
        """The change a reply makes, as applied (replies that differ only in formatting the
        realignment drops are one change); a reply that cannot be applied, by the reason."""
        if candidate is AS_IT_IS:
            return ""
        try:
            edit = applied_edit(state, candidate)
        except EditRejected as exc:
            return f"refused: {exc}"
        return hashlib.sha256(json.dumps(edit.files, sort_keys=True).encode()).hexdigest()

    def reflector_prompt(
        self, state: State, context: Context, reply_tokens: int, counter: TokenCounter
    ) -> list[BaseMessage]:
        return project_reflector_messages(state, context, reply_tokens, counter)

    def test_steps(self, sandbox: Sandbox, job: CandidateJob, context: Context) -> Steps[TestedCandidate]:
        code = job["candidate"]
        if code is AS_IT_IS:
            feedback, suspicious = yield from as_is_steps(sandbox, job, context, job.get("session"))  # type: ignore[arg-type]
            return TestedCandidate(
                index=job["index"], code=code, feedback=feedback, repair_failures=run_failures(feedback),
                baseline_tests=feedback.get("tests_ran") or [], failing_tests=feedback.get("tests_failed") or [],
                as_is_seconds=feedback["seconds"], suspicious=suspicious,
            )
        feedback, edit = yield from project_evaluation_steps(sandbox, code, job, context, job.get("session"))  # type: ignore[arg-type]
        tested = TestedCandidate(index=job["index"], code=code, feedback=feedback)
        if edit is not None:
            tested["changes"] = edit.files
            tested["changed"] = [ChangedDefinition(file=c.file, name=c.name, kind=c.kind) for c in edit.changed]
            tested["changed_lines"] = unified_diff(workspace_of(job), edit.files).changed_lines
        return tested

    def files_as_read(self, state: State) -> Mapping[str, str] | None:
        return workspace_of(state)

    def attempt_fields(self, best: TestedCandidate) -> dict:
        if "changes" not in best:  # the project as it is, or a reply that was not applied
            return {}
        return {"changes": best["changes"], "changed": best.get("changed") or []}

    def run_update(self, tested: list[TestedCandidate]) -> dict:
        # The project as it is was tested: its failures are what every repair prompt shows, the
        # tests it ran are what every repair must run and pass (the failing ones first), and its
        # time is the base of the repairs' time limit.
        return {
            field: t[field]  # type: ignore[literal-required]
            for t in tested
            for field in AS_IS_FIELDS
            if field in t
        }

    def outcome(self, state: State, best: Attempt | None, status: Status) -> dict:
        """The best attempt's change as a diff, written into the project when the input asks
        for it and the tests pass; the run's input and the snapshot cleared from the thread.
        Raises DirtyTreeError (nothing written) when a file to write has uncommitted changes
        (unless `force`) or changed since it was read."""
        changes = (best or {}).get("changes") or {}
        written = []
        workspace = workspace_of(state)
        diff = unified_diff(workspace, changes).text
        if state.get("apply") and status == "passed" and changes:
            emit(ChangeToWrite(kind="change_to_write", diff=diff))
            paths = write_changes(state["project"], changes, originals=workspace, force=bool(state.get("force")))
            written = [str(path) for path in paths]
        return {
            "diff": diff,
            "changed": list((best or {}).get("changed") or []),
            "files_written": written,
            **dict.fromkeys(self.run_fields),
            "suspicious": None,
            "left_out": None,
            "apply": False,
            "force": False,
        }


def repair_line_slots(state: State, limit: int) -> list[LineSlot]:
    """The first `limit` suspicious lines of the project as it is that a line candidate may
    change: statements of the functions the repair may change (repair_scope)."""
    files = workspace_of(state)
    scope = repair_scope(state.get("repair_failures") or [], files, targets=project_targets(state))
    return line_slots(state.get("suspicious") or [], files, scope=scope, limit=limit)
