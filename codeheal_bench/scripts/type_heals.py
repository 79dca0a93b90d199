"""How many seeded type errors does `codeheal fix --check` heal, by the screen and by the model,
and how fast? Heals each case of the type-error corpus (codeheal_bench/type_errors.py) through
the graph as the CLI runs it, with mypy as the checker and the project's tests beside it
(both must hold), in a temporary folder each, and records its status, what healed it, whether
the healed module is the one before the error (exact), the diff's changed lines, attempts and
wall seconds. One JSON line per case is appended to OUT/type_heals[-mutants0].jsonl as it
finishes (a rerun skips those); OUT/type_heals[-mutants0].json holds the summary by split and
kind. `--python`: an interpreter whose environment has pytest and mypy (the sandbox sees
only that environment's packages). `healed_by` says whether the screen (no model call) or the model healed a case;
`--mutants 0`: the model alone (run it under the model's lock: it calls the embedded model).

    .venv/bin/python codeheal_bench/scripts/type_heals.py --out benchmarks/results/type-heals \\
        --python /path/to/env/bin/python [--split tuning|report] [--kind KIND] [--max-attempts N] [--mutants 0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console

from codeheal import best_attempt, build_graph, resolve, settings_of
from codeheal.errors import InputError
from codeheal_bench.diffs import healed_by
from codeheal_bench.records import Records, record_each
from codeheal_bench.type_errors import TEST_COMMAND, TypeCase, type_cases

NAME = "type_heals"


def heal_case(graph, case: TypeCase, context, python: str) -> dict:  # type: ignore[no-untyped-def]
    """Write the case's project into a folder of its own, heal it, and score the result."""
    with tempfile.TemporaryDirectory(prefix=f"type-{case.name}-") as folder:
        project = Path(folder)
        for path, text in case.files.items():
            (project / path).parent.mkdir(parents=True, exist_ok=True)
            (project / path).write_text(text, encoding="utf-8")
        request = {"project": str(project), "test_command": TEST_COMMAND, "check_command": case.check_command,
                   "python": python}
        started = time.perf_counter()
        try:
            result = graph.invoke(request, context=context)
        except InputError as exc:  # the CLI's exit 2
            return _record(case, context, status="refused", seconds=time.perf_counter() - started,
                           error=f"{type(exc).__name__}: {str(exc)[:300]}")
        seconds = time.perf_counter() - started
        history = result["history"]
        if len(history) == 1 and result["status"] == "passed":
            return _record(case, context, status="clean", seconds=seconds)  # mypy and the tests agree already
        changes = best_attempt(history).get("changes") or {} if history else {}
        changed_lines = sum(1 for line in result["diff"].splitlines()
                            if line[:1] in "+-" and not line.startswith(("---", "+++")))
        return _record(case, context, status=result["status"], seconds=seconds, by=healed_by(result),
                       attempts=result["attempts"], exact=changes.get(case.file) == case.right,
                       changed_lines=changed_lines, diff=result["diff"],
                       summaries=[a["summary"] for a in history])


def _record(case: TypeCase, context, *, status: str, seconds: float, by: str = "", attempts: int = 0, exact: bool = False,  # type: ignore[no-untyped-def]
            changed_lines: int = 0, error: str | None = None, diff: str = "", summaries: list[str] | None = None) -> dict:
    return {"case": case.name, "kind": case.kind, "split": case.split, "context": settings_of(context), "status": status,
            "healed": status == "passed", "healed_by": by, "exact": exact, "attempts": attempts,
            "changed_lines": changed_lines, "seconds": round(seconds, 1), "error": error, "diff": diff,
            "summaries": summaries or []}


def summary(records: list[dict]) -> dict:
    """Heal rate, exact heals, median diff and seconds, over the cases and by kind."""
    counted = [r for r in records if r["status"] != "clean"]
    healed = [r for r in counted if r["healed"]]
    return {
        "cases": len(counted),
        "clean": len(records) - len(counted),
        "healed": len(healed),
        "healed_by": {by: sum(r["healed_by"] == by for r in healed) for by in sorted({r["healed_by"] for r in healed})},
        "exact": sum(r["exact"] for r in healed),
        "refused": sum(r["status"] == "refused" for r in counted),
        "median_changed_lines": statistics.median([r["changed_lines"] for r in healed]) if healed else None,
        "median_seconds": statistics.median([r["seconds"] for r in counted]) if counted else None,
        "worst_seconds": max((r["seconds"] for r in counted), default=None),
        "by_kind": {kind: {"cases": sum(r["kind"] == kind for r in counted),
                           "healed": sum(r["kind"] == kind for r in healed)}
                    for kind in sorted({r["kind"] for r in counted})},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--python", required=True, help="an interpreter whose environment has pytest and mypy")
    parser.add_argument("--split", choices=("tuning", "report"), help="only that split's cases")
    parser.add_argument("--kind", choices=("conversion", "annotation", "optional"), help="only that kind's cases")
    parser.add_argument("--max-attempts", type=int, help="the attempts a case may use (the screen's does not count)")
    parser.add_argument("--mutants", type=int, help="0: the screen off, the model alone (files named -mutants0)")
    args = parser.parse_args()
    cases = [c for c in type_cases() if args.split in (None, c.split) and args.kind in (None, c.kind)]
    given = {"sandbox": "local", **({} if args.mutants is None else {"mutants": args.mutants}),
             **({} if args.max_attempts is None else {"max_attempts": args.max_attempts})}
    context = resolve(given).context
    named = ("" if args.mutants is None else f"-mutants{args.mutants}") + (
        "" if args.max_attempts is None else f"-attempts{args.max_attempts}")
    settings = settings_of(context)
    args.out.mkdir(parents=True, exist_ok=True)
    records: Records[dict] = Records(args.out / f"{NAME}{named}.jsonl", key=lambda r: r["case"],
                                     settings_of=lambda r: settings)
    graph = build_graph().compile(name="codeheal")
    console = Console(stderr=True)
    record_each(cases, records, name=lambda c: c.name, heal=lambda c: heal_case(graph, c, context, args.python),
                outcome=lambda r: f"{r['status']} ({r['healed_by'] or '-'}), {r['seconds']} s", console=console)
    chosen = [records[c.name] for c in cases if c.name in records]
    splits = sorted({r["split"] for r in chosen})
    result = {"command": "type_heals.py" + "".join(f" --{k.replace('_', '-')} {v}" for k, v in vars(args).items()
                                                   if v is not None and k not in ("out", "python")),
              "model": context.model, "by_split": {s: summary([r for r in chosen if r["split"] == s]) for s in splits},
              "cases": [c.name for c in cases]}
    (args.out / f"{NAME}{named}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    console.print(json.dumps(result["by_split"], indent=2))


if __name__ == "__main__":
    main()
