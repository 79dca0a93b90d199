"""The line coverage the report plugin recorded per test (advisory evidence: it ranks the
suspicious lines a repair prompt points at, never a verdict), read from a run's report."""

from __future__ import annotations

from codeheal.evaluation.verdict import parse_report
from codeheal.sandboxes.base import RunResult

CoverageByTest = dict[str, dict[str, set[int]]]
"""Test node id -> workspace path -> the lines it executed."""


def coverage_by_test(result: RunResult) -> CoverageByTest:
    """Each test's coverage from the run's report (several coverage events of one test are
    merged; malformed ones are skipped)."""
    coverage: CoverageByTest = {}
    for event in parse_report(result.report).events:
        test, lines = event.get("test"), event.get("lines")
        if event.get("event") != "coverage" or not isinstance(test, str) or not isinstance(lines, dict):
            continue
        by_file = coverage.setdefault(test, {})
        for path, numbers in lines.items():
            if isinstance(path, str) and isinstance(numbers, list):
                by_file.setdefault(path, set()).update(n for n in numbers if isinstance(n, int))
    return coverage
