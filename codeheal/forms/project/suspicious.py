"""Which lines of a project most likely hold the defect: a spectrum score over each test's line
coverage (Ochiai: the lines the failing tests execute and the passing ones do not), raised for
the lines on a failure's traceback. A `def` line holding a default the screen changes, never
executed in a test (it runs at import), is ranked with its function's entry: what the failing
tests called, the default took part in unless given.

The coverage is the report plugin's advisory evidence from the run of the project as it is
(evaluation/coverage.py); it only orders what the repair prompt points at and which lines get
line-level candidates, never a verdict."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from codeheal.forms.project.test_paths import is_test_file
from codeheal.state import CheckFailure, SuspiciousLine

FRAME_BONUS = 0.5
"""Added to a line a failure's traceback stops at in the project's code (the innermost
project frame; half that for the frames that called it)."""
RANKED = 20
"""Lines kept in the ranking."""


def rank_lines(
    coverage: Mapping[str, Mapping[str, Collection[int]]],
    failed: Collection[str],
    failures: Sequence[CheckFailure],
    files: Mapping[str, str],
    default_lines: Mapping[tuple[str, int], tuple[str, int]] | None = None,
) -> list[SuspiciousLine]:
    """The project's lines (not the tests'), most suspicious first, at most RANKED of them.
    `coverage`: test node id -> workspace path -> the lines that test executed; `failed`: the
    node ids that failed (or did not finish); `failures`: their failures, whose frames add
    FRAME_BONUS. Score = failed(s) / sqrt(total_failed * (failed(s) + passed(s))) plus the
    bonus; equal scores in reading order. Lines no failing test executed and no frame names
    are left out. `default_lines`: (path, def line) -> (path, its function's first statement)
    for the `def` lines holding a default the screen changes (mutations.default_lines); each
    takes its entry's score and ranks after the lines it ties with."""
    failing = set(failed)
    covered_failing = [t for t in coverage if t in failing]
    hits: dict[tuple[str, int], list[int]] = {}
    for test, by_file in coverage.items():
        outcome = 0 if test in failing else 1
        for path, lines in by_file.items():
            if path not in files or is_test_file(path):
                continue
            for line in set(lines):
                hits.setdefault((path, line), [0, 0])[outcome] += 1
    scores = {
        key: failed_here / math.sqrt(len(covered_failing) * (failed_here + passed_here))
        for key, (failed_here, passed_here) in hits.items() if failed_here
    }
    bonus: dict[tuple[str, int], float] = {}
    for failure in failures:
        project_frames = [f for f in reversed(failure["frames"]) if f["file"] in files and not is_test_file(f["file"])]
        for depth, frame in enumerate(project_frames):
            key = (frame["file"], frame["line"])
            bonus[key] = max(bonus.get(key, 0.0), FRAME_BONUS if depth == 0 else FRAME_BONUS / 2)
    for key, extra in bonus.items():
        scores[key] = scores.get(key, 0.0) + extra
    defaults = {key: scores[entry] for key, entry in (default_lines or {}).items() if entry in scores and key not in scores}
    ranked = sorted({**scores, **defaults}.items(), key=lambda item: (-item[1], item[0] in defaults, item[0]))[:RANKED]
    return [SuspiciousLine(file=path, line=line, score=round(score, 3)) for (path, line), score in ranked]
