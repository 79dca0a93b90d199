"""The QuixBugs benchmark: `codeheal fix` on each program, with its test file as the test command.

Each program is written into a temporary folder of its own and healed through the graph, with the same input the CLI gives it (project, test command, task, target). One JSON
line per program is appended to OUT/quixbugs.jsonl as it finishes, so a rerun skips the finished
ones; then OUT/quixbugs.json (summary and rows), quixbugs.md (the table) and quixbugs.diff (every
diff) are written. Scored against the targets the issue set: at least 12 of the 20 healed with
the embedded 0.5B model (16 with the 1.5B model, the default `local`), a median diff of at most 2 changed lines, no hunk
that changes only whitespace, no file other than the program touched, and with the 0.5B model
the 20 in at most 10 minutes."""

from __future__ import annotations

import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict

from langgraph.graph.state import CompiledStateGraph
from rich.console import Console

from codeheal import Breakdown, Context, best_attempt, breakdown, build_graph, lasting_name, settings_of
from codeheal.errors import ConfigError, PromptTooLargeError

from codeheal_bench.config import ProjectConfig
from codeheal_bench.diffs import change, healed_by, whitespace_only_hunks
from codeheal_bench.quixbugs import QuixProblem, load_quixbugs
from codeheal_bench.records import Records, record_each
from codeheal_bench.report import Report, summed_breakdowns, time_line, write_report

RECORDS_FILE = "quixbugs.jsonl"
TUNING = ("bucketsort", "is_valid_parenthesization", "lcs_length", "longest_common_subsequence", "quicksort",
          "shortest_path_lengths")
"""The programs the project form's settings were tuned on (every third of the 20 by name,
from the second, chosen before any result); the other 14 are reported apart."""
TARGET_HEALED = 12
TARGET_HEALED_BY_MODEL = {"local-1.5b": 16}
"""Models held to a heal target other than TARGET_HEALED, by the name that stays with each
(codeheal.lasting_name: "local" is held to its model's)."""
TARGET_MEDIAN_LINES = 2
TARGET_SECONDS = 600
TIMED_MODELS = ("local-0.5b",)
"""The time target is set for the embedded 0.5B model only."""


@dataclass(frozen=True)
class QuixConfig(ProjectConfig):
    """One QuixBugs invocation."""

    data_dir: Path | None = None


class QuixRecord(TypedDict):
    """One program's outcome."""

    program: str
    context: dict
    status: str
    healed: bool
    healed_by: str
    """"mutation" (the screen, no model call), "model", or "" when not healed."""
    attempts: int
    changed_lines: int
    files_changed: list[str]
    only_program_touched: bool
    tokens: int
    seconds: float
    breakdown: NotRequired[Breakdown]
    """Where its seconds went (records written before the breakdown existed lack it)."""
    error: str | None
    summaries: list[str]
    diff: str


def run_quixbugs(config: QuixConfig, console: Console) -> dict:
    """Heal every selected program not recorded yet, then write the summary, the table and the
    diffs. Returns the summary."""
    problems = load_quixbugs(config.data_dir)
    if config.only:
        unknown = sorted(set(config.only) - {p.name for p in problems})
        if unknown:
            raise ConfigError(f"no QuixBugs program named {', '.join(unknown)}")
        problems = [p for p in problems if p.name in config.only]
    context = config.fix_context()
    settings = settings_of(context)
    records: Records[QuixRecord] = Records(config.out_dir / RECORDS_FILE, key=lambda r: r["program"],
                                           settings_of=lambda r: settings)
    graph = build_graph().compile(name="codeheal")
    record_each(problems, records, name=lambda p: p.name, heal=lambda p: heal_program(graph, p, context),
                outcome=_outcome, console=console)
    chosen = [records[p.name] for p in problems if p.name in records]
    return write_report(config.out_dir, quixbugs_report(chosen, context))


def heal_program(graph: CompiledStateGraph, problem: QuixProblem, context: Context) -> QuixRecord:
    """Heal the program in a temporary folder of its own; a prompt too large for the model is
    recorded as not run (a result: the program does not fit), not retried."""
    try:
        with tempfile.TemporaryDirectory(prefix=f"quixbugs-{problem.name}-") as folder:
            return run_program(graph, problem, context, Path(folder))
    except PromptTooLargeError as exc:
        return _not_run(problem, context, f"{type(exc).__name__}: {exc}")


def _outcome(record: QuixRecord) -> str:
    mark = "[green]healed[/green]" if record["healed"] else "[red]not healed[/red]"
    return f"{mark}, {record['changed_lines']} changed lines, {record['attempts']} attempts, {record['seconds']:.0f} s"


def run_program(graph: CompiledStateGraph, problem: QuixProblem, context: Context, project: Path) -> QuixRecord:
    """Write the program's project into the folder `project`, heal it, and score the result."""
    for name, text in problem.files.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    request = {
        "project": str(project), "test_command": problem.test_command,
        "task": problem.task, "target": problem.target,
    }
    started = time.perf_counter()
    result = graph.invoke(request, context=context)
    seconds = time.perf_counter() - started
    made = change(problem.files, best_attempt(result["history"]).get("changes") or {})
    return QuixRecord(
        program=problem.name, context=settings_of(context), status=result["status"],
        healed=result["status"] == "passed", healed_by=healed_by(result), attempts=result["attempts"],
        changed_lines=made.changed_lines, files_changed=made.files,
        only_program_touched=set(made.files) <= {problem.program},
        tokens=sum(a["tokens"] for a in result["history"]), seconds=round(seconds, 1),
        breakdown=breakdown(result["history"], seconds), error=None,
        summaries=[a["summary"] for a in result["history"]], diff=result["diff"],
    )


def _not_run(problem: QuixProblem, context: Context, error: str) -> QuixRecord:
    return QuixRecord(
        program=problem.name, context=settings_of(context), status="failed", healed=False, healed_by="", attempts=0,
        changed_lines=0, files_changed=[], only_program_touched=True, tokens=0, seconds=0.0,
        error=error, summaries=[], diff="",
    )


def quixbugs_report(records: list[QuixRecord], context: Context) -> Report:
    """quixbugs.json, quixbugs.md and quixbugs.diff from the records."""
    healed = [r for r in records if r["healed"]]
    median = statistics.median(r["changed_lines"] for r in healed) if healed else None
    noise = {r["program"]: whitespace_only_hunks(r["diff"]) for r in records}
    seconds = round(sum(r["seconds"] for r in records), 1)
    model = lasting_name(context.model)
    target_healed = TARGET_HEALED_BY_MODEL.get(model, TARGET_HEALED)
    timed = model in TIMED_MODELS
    summary = {
        "model": context.model,
        "max_attempts": context.max_attempts,
        "timeout_s": context.timeout_s,
        "programs": len(records),
        "healed": len(healed),
        "healed_by_mutation": sum(r.get("healed_by") == "mutation" for r in healed),
        "healed_tuning": sum(r["program"] in TUNING for r in healed),
        "programs_tuning": sum(r["program"] in TUNING for r in records),
        "median_changed_lines_healed": median,
        "only_program_touched": sum(r["only_program_touched"] for r in records),
        "mean_attempts": round(statistics.mean(r["attempts"] for r in records), 2) if records else None,
        "whitespace_only_hunks": sum(noise.values()),
        "tokens": sum(r["tokens"] for r in records),
        "seconds": seconds,
        "breakdown": summed_breakdowns([r["breakdown"] for r in records if "breakdown" in r]),
        "target_healed": target_healed,
        "target_seconds": TARGET_SECONDS if timed else None,
        "targets_met": {
            "healed": len(healed) >= target_healed,
            "median_changed_lines": median is not None and median <= TARGET_MEDIAN_LINES,
            "no_whitespace_only_hunk": not any(noise.values()),
            "only_program_touched": all(r["only_program_touched"] for r in records),
            "seconds": seconds <= TARGET_SECONDS if timed else None,
        },
        "rows": [
            {**{k: v for k, v in r.items() if k not in ("context", "diff")}, "whitespace_only_hunks": noise[r["program"]]}
            for r in records
        ],
    }
    diffs = "".join(f"# {r['program']}: {r['status']}\n{r['diff']}\n" for r in records)
    return Report("quixbugs", summary, _table(summary), diff=diffs)


def _table(summary: dict) -> str:
    met = summary["targets_met"]
    timing = (f" (target at most {summary['target_seconds']} s: {'met' if met['seconds'] else 'not met'})"
              if summary["target_seconds"] else "")
    lines = [
        f"# QuixBugs: `codeheal fix` with model {summary['model']}",
        "",
        f"Healed {summary['healed']} of {summary['programs']} (target {summary['target_healed']}: "
        f"{'met' if met['healed'] else 'not met'}); median diff of the healed "
        f"{summary['median_changed_lines_healed']} changed lines (target at most {TARGET_MEDIAN_LINES}: "
        f"{'met' if met['median_changed_lines'] else 'not met'}); {summary['whitespace_only_hunks']} "
        f"hunks that change only whitespace (target none: {'met' if met['no_whitespace_only_hunk'] else 'not met'}); "
        f"only the program touched in {summary['only_program_touched']} of {summary['programs']}. Up to "
        f"{summary['max_attempts']} attempts (attempt 1 runs the tests as the program is), test timeout "
        f"{summary['timeout_s']:g} s; {summary['tokens']:,} tokens, {summary['seconds']:,.0f} s in all{timing}.",
        "",
        time_line(summary["breakdown"]),
        "",
        f"Healed by the mutation screen (no model call): {summary['healed_by_mutation']}; by the model: "
        f"{summary['healed'] - summary['healed_by_mutation']}.",
        "",
        f"Tuning programs ({', '.join(TUNING)}): healed {summary['healed_tuning']} of "
        f"{summary['programs_tuning']}; the others: healed {summary['healed'] - summary['healed_tuning']} of "
        f"{summary['programs'] - summary['programs_tuning']}.",
        "",
        "| program | healed | changed lines | whitespace-only hunks | attempts | tokens | seconds | last outcome |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in summary["rows"]:
        outcome = r["error"] or (r["summaries"][-1] if r["summaries"] else "")
        outcome = outcome.replace("|", "\\|")[:100]
        healed = f"yes ({r['healed_by']})" if r["healed"] and r.get("healed_by") else "yes" if r["healed"] else "no"
        lines.append(f"| {r['program']} | {healed} | {r['changed_lines']} | "
                     f"{r['whitespace_only_hunks']} | {r['attempts']} | {r['tokens']} | {r['seconds']:.1f} | {outcome} |")
    return "\n".join(lines) + "\n"
