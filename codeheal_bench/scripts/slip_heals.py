"""How many one-slip projects does `codeheal fix` heal, and how fast? Heals each case of the
slip corpus (codeheal_bench/slips.py: syntax and collection errors drawn by rule from three small
projects) with the default model and settings, each in a temporary folder, through the graph as
the CLI runs it, and records its status, what healed it, whether the healed module is the one
before the slip (exact), its attempts and wall seconds. One JSON line per case is appended to
OUT/syntax_slips.jsonl as it finishes (a rerun skips those); then OUT/syntax_slips.json holds the
summary: heal rate, median and worst seconds, by kind (`--mutants 0`: the model alone, in
syntax_slips-mutants0.*). Run it alone: it calls the embedded model.

    flock /tmp/codeheal-model.lock .venv/bin/python codeheal_bench/scripts/slip_heals.py \\
        --out benchmarks/results [--only NAME ...] [--every K] [--mutants 0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console

from codeheal import best_attempt, build_graph, resolve, settings_of
from codeheal.errors import InputError
from codeheal_bench.diffs import healed_by
from codeheal_bench.records import Records, record_each
from codeheal_bench.slips import TEST_COMMAND, SlipCase, slip_cases

NAME = "syntax_slips"


def heal_case(graph, case: SlipCase, context) -> dict:  # type: ignore[no-untyped-def]
    """Write the case's project into a folder of its own, heal it, and score the result."""
    with tempfile.TemporaryDirectory(prefix=f"slip-{case.name}-") as folder:
        project = Path(folder)
        for path, text in case.files.items():
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            (project / path).write_text(text, encoding="utf-8")
        started = time.perf_counter()
        try:
            result = graph.invoke({"project": str(project), "test_command": TEST_COMMAND}, context=context)
        except InputError as exc:  # the CLI's exit 2
            return _record(case, context, status="refused", seconds=time.perf_counter() - started,
                           error=f"{type(exc).__name__}: {str(exc)[:300]}")
        seconds = time.perf_counter() - started
        changes = best_attempt(result["history"]).get("changes") or {} if result["history"] else {}
        return _record(case, context, status=result["status"], seconds=seconds, by=healed_by(result),
                       attempts=result["attempts"], exact=changes.get(case.file) == case.right,
                       summaries=[a["summary"] for a in result["history"]], diff=result["diff"])


def _record(case: SlipCase, context, *, status: str, seconds: float, by: str = "", attempts: int = 0,  # type: ignore[no-untyped-def]
            exact: bool = False, error: str | None = None, summaries: list[str] | None = None,
            diff: str = "") -> dict:
    return {"case": case.name, "kind": case.kind, "context": settings_of(context), "status": status,
            "healed": status == "passed", "healed_by": by, "exact": exact, "attempts": attempts,
            "seconds": round(seconds, 1), "error": error, "summaries": summaries or [], "diff": diff}


def summary(records: list[dict], model: str) -> dict:
    """Heal rate, seconds and counts, over all cases and by kind."""
    healed = [r for r in records if r["healed"]]
    seconds = [r["seconds"] for r in records]
    kinds = sorted({r["kind"] for r in records})
    return {
        "model": model,
        "cases": len(records),
        "healed": len(healed),
        "heal_rate": round(len(healed) / len(records), 3) if records else None,
        "exact": sum(r["exact"] for r in records),
        "healed_by": dict(Counter(r["healed_by"] for r in healed)),
        "refused": sum(r["status"] == "refused" for r in records),
        "median_seconds": statistics.median(seconds) if seconds else None,
        "worst_seconds": max(seconds) if seconds else None,
        "by_kind": {kind: {"cases": sum(r["kind"] == kind for r in records),
                           "healed": sum(r["kind"] == kind and r["healed"] for r in records)} for kind in kinds},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--every", type=int, default=1, help="every K-th case of the corpus (a named sample)")
    parser.add_argument("--mutants", type=int, help="0: the screen off, the model alone (files named -mutants0)")
    args = parser.parse_args()
    cases = [c for c in slip_cases() if not args.only or c.name in args.only][::args.every]
    context = resolve({"sandbox": "local", **({} if args.mutants is None else {"mutants": args.mutants})}).context
    named = "" if args.mutants is None else f"-mutants{args.mutants}"
    settings = settings_of(context)
    records: Records[dict] = Records(args.out / f"{NAME}{named}.jsonl", key=lambda r: r["case"], settings_of=lambda r: settings)
    graph = build_graph().compile(name="codeheal")
    console = Console(stderr=True)
    record_each(cases, records, name=lambda c: c.name, heal=lambda c: heal_case(graph, c, context),
                outcome=lambda r: f"{r['status']} ({r['healed_by'] or '-'}), {r['seconds']} s", console=console)
    chosen = [records[c.name] for c in cases if c.name in records]
    result = {"command": f"slip_heals.py --every {args.every}" + (f" --only {' '.join(args.only)}" if args.only else "")
              + (f" --mutants {args.mutants}" if args.mutants is not None else ""),
              "summary": summary(chosen, context.model), "cases": [c.name for c in cases]}
    (args.out / f"{NAME}{named}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    console.print(json.dumps(result["summary"], indent=2))


if __name__ == "__main__":
    main()
