"""Localisation measured over the drawn corpus (no model): for each case, the rank of its buggy
line in the suspicious-line ranking `codeheal fix` computes from the run of the project as it is
(each test's line coverage, Ochiai, plus the traceback's frames), as the repair prompt, the
screen and the line candidates read it. Split by where the bug sits: on the failing traceback
(a frame lies in the buggy function) or off it (a helper the failing tests reach through other
functions, or a function whose wrong result the test's own assert catches).

Both halves may be measured: the ranking is codeheal's as it is, and nothing here is chosen by
the result. One JSON line per case goes to OUT/localisation.jsonl as it finishes (a rerun skips
the finished ones); then localisation.json and .md."""

from __future__ import annotations

import ast
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from rich.console import Console

from codeheal import build_graph, resolve

from codeheal_bench.corpus import LIBRARIES, CorpusCase, half_of, load_cases
from codeheal_bench.records import Records, record_each
from codeheal_bench.report import Report, write_report
from codeheal_bench.seeded import seed
from codeheal_bench.seeded_run import pristine_files, write_project

TOPS = (1, 5, 10)
SCREENED = 10
"""The screen mutates the lines of the first 10 places (rules.MUTATED_LINES)."""


def ranking(files: dict[str, str], test_command: str, timeout_s: float) -> dict:
    """The run of the project `files` as it is (one attempt, no model, no screen): its failures
    and its suspicious lines, as the project form's record holds them, and the repair's scope
    (`scope`: path -> the names of the functions a repair may change; None: not known)."""
    never = GenericFakeChatModel(messages=iter(()))
    context = resolve({"max_attempts": 1, "mutants": 0, "timeout_s": timeout_s, "sandbox": "local"}).context
    found: dict = {}
    with tempfile.TemporaryDirectory(prefix="localisation-") as folder:
        write_project(Path(folder), files)
        for update in build_graph(llm=never).compile().stream(
                {"project": folder, "test_command": test_command}, context=context, stream_mode="updates"):
            for fields in update.values():
                run = (fields or {}).get("form_run") or {}
                if run.get("as_is"):
                    found = {**run["as_is"], "scope": (run.get("scope") or {}).get("functions")}
    return found


def located(case: CorpusCase, files: dict[str, str], as_is: dict) -> dict:
    """Where the case's buggy line is in the ranking (1-based; None: not ranked), whether the
    failures' traceback passes through its function, whether its function is in the repair's
    scope, and its rank among the ranked lines in that scope (the lines the screen and the line
    candidates take, in order); `def_lines_ahead`: the `def` lines ranked before it (or in the
    ranking when it is not: suspicious.py ranks those holding defaults)."""
    frames = [frame for failure in as_is.get("failures", []) for frame in failure["frames"]]
    function = _enclosing(files, case.file, case.line_number)
    span = range(function.lineno, (function.end_lineno or function.lineno) + 1) if function else range(0)
    on_traceback = any(frame["file"].endswith(case.file) and frame["line"] in span for frame in frames)
    places = [(entry["file"], entry["line"]) for entry in as_is.get("suspicious", [])]
    scope = as_is.get("scope")

    def in_scope(path: str, line: int) -> bool:
        enclosing = _enclosing(files, path, line)
        return scope is None or (enclosing is not None and enclosing.name in scope.get(path, []))

    scoped = [place for place in places if in_scope(*place)]
    bug = (case.file, case.line_number)
    ahead = places[:places.index(bug)] if bug in places else places
    return {"rank": places.index(bug) + 1 if bug in places else None, "on_traceback": on_traceback,
            "def_lines_ahead": sum(_is_def_line(files, *place) for place in ahead),
            "ranked": len(places), "in_scope": in_scope(*bug),
            "rank_in_scope": scoped.index(bug) + 1 if bug in scoped else None}


def _is_def_line(files: dict[str, str], path: str, line: int) -> bool:
    lines = files.get(path, "").splitlines()
    return 0 < line <= len(lines) and lines[line - 1].lstrip().startswith(("def ", "async def "))


def _enclosing(files: dict[str, str], path: str, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function of `path` holding `line`."""
    around = [node for node in ast.walk(ast.parse(files.get(path, ""))) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
              and node.lineno <= line <= (node.end_lineno or node.lineno)]
    return max(around, key=lambda node: node.lineno) if around else None


def measure(cases: Sequence[CorpusCase], out_dir: Path, console: Console, timeout_s: float = 120.0) -> dict:
    """Rank each case's buggy line, then write the report."""
    pristine = pristine_files(cases, LIBRARIES, None)
    records: Records[dict] = Records(out_dir / "localisation.jsonl", key=lambda r: r["program"],
                                     settings_of=lambda r: {})

    def rank(case: CorpusCase) -> dict:
        files = seed(pristine[case.library], case)
        as_is = ranking(files, case.test_command, timeout_s)
        return {"program": case.name, "half": half_of(case.name), "kind": case.kind, "file": case.file,
                "line": case.line_number, "failures": len(as_is.get("failures", [])),
                **located(case, files, as_is)}

    record_each(cases, records, name=lambda c: c.name, console=console, heal=rank,
                outcome=lambda r: f"rank {r['rank']}" + (" (on the traceback)" if r["on_traceback"] else ""))
    rows = [records[c.name] for c in cases if c.name in records]
    summary = {"cases": len(rows), "all": _summary(rows),
               "in_scope": sum(r["in_scope"] for r in rows),
               "screened": sum(r["rank_in_scope"] is not None and r["rank_in_scope"] <= SCREENED for r in rows),
               "on_traceback": _summary([r for r in rows if r["on_traceback"]]),
               "off_traceback": _summary([r for r in rows if not r["on_traceback"]])}
    return write_report(out_dir, Report("localisation", summary, _markdown(summary, rows)))


def _summary(rows: list[dict]) -> dict:
    ranks = [r["rank"] for r in rows]
    # a line not ranked at all counts as ranked last, after every ranked one
    ordered = sorted(ranks, key=lambda rank: (rank is None, rank or 0))
    median = ordered[(len(ordered) - 1) // 2] if ordered else None
    return {"cases": len(rows), **{f"top_{n}": sum(r is not None and r <= n for r in ranks) for n in TOPS},
            "not_ranked": sum(r is None for r in ranks), "median_rank": median,
            "mean_rank_ranked": round(statistics.mean([r for r in ranks if r is not None]), 1)
            if any(r is not None for r in ranks) else None}


def _markdown(summary: dict, rows: list[dict]) -> str:
    lines = [
        "# Localisation over the drawn corpus",
        "",
        "The rank of each case's buggy line in the suspicious-line ranking of the run of the project as it "
        "is (`codeheal-bench corpus --localisation`, no model; both halves: nothing is chosen by it). "
        f"The screen mutates the first {SCREENED} places; a line not ranked counts as last in the median.",
        "",
        "| bugs | cases | top 1 | top 5 | top 10 | not ranked | median rank |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for key, label in (("all", "all"), ("on_traceback", "on the traceback"), ("off_traceback", "off the traceback")):
        s = summary[key]
        median = "not ranked" if s["cases"] and s["median_rank"] is None else s["median_rank"]
        lines.append(f"| {label} | {s['cases']} | {s['top_1']} | {s['top_5']} | {s['top_10']} | "
                     f"{s['not_ranked']} | {median} |")
    lines += ["", f"The buggy line's function is in the repair's scope (what a repair, the screen and the line "
              f"candidates may change) in {summary['in_scope']} of {summary['cases']} cases; the line is among the "
              f"first {SCREENED} ranked lines of the scope (the screen's reach) in {summary['screened']}."]
    lines += ["", "| case | half | kind | on the traceback | rank | of | in the repair's scope | rank in the scope |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    yes = {True: "yes", False: "no"}
    lines += [f"| {r['program']} | {r['half']} | {r['kind']} | {yes[r['on_traceback']]} | {r['rank'] or '-'} | "
              f"{r['ranked']} | {yes[r['in_scope']]} | {r['rank_in_scope'] or '-'} |" for r in rows]
    return "\n".join(lines) + "\n"

