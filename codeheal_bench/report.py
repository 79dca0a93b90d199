"""Writing a benchmark's report: OUT/NAME.json (the summary), OUT/NAME.md (the table a person
reads), and where the benchmark has them OUT/NAME.diff (every change) and its plots."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from codeheal import Breakdown


@dataclass(frozen=True)
class Report:
    """A benchmark's results, ready to write."""

    name: str
    summary: dict
    markdown: str
    diff: str | None = None
    plots: Mapping[str, Callable[[Path], None]] = field(default_factory=dict)
    """File name -> the function that draws it into that path."""


def write_report(out_dir: Path, report: Report) -> dict:
    """Write the report's files into `out_dir`; returns the summary."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{report.name}.json").write_text(json.dumps(report.summary, indent=2) + "\n", encoding="utf-8")
    (out_dir / f"{report.name}.md").write_text(report.markdown, encoding="utf-8")
    if report.diff is not None:
        (out_dir / f"{report.name}.diff").write_text(report.diff, encoding="utf-8")
    for file_name, draw in report.plots.items():
        draw(out_dir / file_name)
    return report.summary


BREAKDOWN_FIELDS = ("prompt_evaluated", "prompt_reused", "prompt_seconds", "generation_seconds", "sandbox_seconds",
                    "overhead_seconds")


def summed_breakdowns(breakdowns: list[Breakdown]) -> Breakdown:
    """Several runs' breakdowns (codeheal.breakdown) as one: a benchmark's total."""
    total = {name: sum(b[name] for b in breakdowns) for name in BREAKDOWN_FIELDS}  # type: ignore[literal-required]
    return Breakdown(**{name: round(value, 1) if isinstance(value, float) else value  # type: ignore[typeddict-item]
                        for name, value in total.items()})


def time_line(total: Breakdown) -> str:
    """Where a benchmark's seconds went, as a sentence of its report."""
    return (f"Time: {total['prompt_seconds']:,.0f} s reading prompts ({total['prompt_evaluated']:,} prompt tokens "
            f"evaluated, {total['prompt_reused']:,} reused from the server's cache), {total['generation_seconds']:,.0f} s "
            f"writing, {total['sandbox_seconds']:,.0f} s in the sandbox, {total['overhead_seconds']:,.0f} s codeheal's own.")
