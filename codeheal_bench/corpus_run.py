"""The drawn corpus run (codeheal_bench/corpus.py): `codeheal fix` on each case of one half with
its one or two test files as the test command, scored as the seeded bugs are (seeded_run.heal_one:
healed, the library's whole suite passing on the result) plus the runs that end in an error (a
codeheal error the run raised: exit 2 or 3 in the CLI), each recorded, not skipped. One JSON line
per case (with its model calls) goes to OUT/corpus_<half>.jsonl as it finishes (a rerun skips the finished ones); then
corpus_<half>.json, .md and .diff."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from rich.console import Console

from codeheal import build_graph, settings_of
from codeheal.errors import CodehealError

from codeheal_bench.corpus import LIBRARIES, CorpusCase, load_cases
from codeheal_bench.records import Records, record_each
from codeheal_bench.report import Report, write_report
from codeheal_bench.seeded_run import SeededConfig, _outcome, heal_one, pristine_files, seeded_report


class ModelCalls(BaseCallbackHandler):
    """Counts a run's requests to the model (a LangChain callback)."""

    def __init__(self) -> None:
        self.count = 0

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]], **kwargs: Any) -> None:
        self.count += 1


def run_corpus(config: SeededConfig, console: Console, half: str, *, limit: int | None = None,
               cases: Sequence[CorpusCase] | None = None) -> dict:
    """Heal every case of `half` (the first `limit`) not recorded yet, then write the report."""
    selected = [c for c in (cases if cases is not None else load_cases(half=half))
                if not config.only or c.name in config.only][:limit]
    pristine = pristine_files(selected, LIBRARIES, config.cache)
    context = config.fix_context()
    settings = settings_of(context)
    name = f"corpus_{half}"
    records: Records[dict] = Records(config.out_dir / f"{name}.jsonl", key=lambda r: r["program"],
                                     settings_of=lambda r: settings)
    calls = ModelCalls()
    graph = build_graph().compile(name="codeheal").with_config(callbacks=[calls])

    def heal(case: CorpusCase) -> dict:
        started = time.perf_counter()
        calls.count = 0
        try:
            healed = heal_one(graph, case, LIBRARIES[case.library], pristine[case.library], context)  # type: ignore[arg-type]
            return {**healed, "model_calls": calls.count, "error": None}
        except CodehealError as exc:  # a run that ends in an error is a result here, not a retry
            return {"program": case.name, "library": LIBRARIES[case.library].requirement, "kind": case.kind,
                    "test_command": case.test_command, "status": "error", "healed": False, "healed_by": None,
                    "suite_passed": False, "restored": False, "attempts": 0, "changed_lines": 0, "tokens": 0,
                    "seconds": round(time.perf_counter() - started, 1), "summaries": [], "diff": "",
                    "model_calls": calls.count, "error": f"{type(exc).__name__}: {exc}"}

    record_each(selected, records, name=lambda c: c.name, console=console,
                outcome=lambda r: r["error"] or _outcome(r), heal=heal)
    rows = [records[c.name] for c in selected if c.name in records]
    report = seeded_report(rows, context, title=f"Drawn bugs, {half} half")
    summary = {**report.summary, "half": half, "errors": sum(r.get("error") is not None for r in rows),
               "healed_but_breaking": sum(r["healed"] and not r["suite_passed"] for r in rows),
               "not_healed": sum(not r["healed"] and r.get("error") is None for r in rows)}
    head = (f"Half {half}: {len(rows)} cases; healed with the whole suite passing {summary['healed_suite_passes']}, "
            f"healed but breaking the suite {summary['healed_but_breaking']}, not healed {summary['not_healed']}, "
            f"ended in an error {summary['errors']}.\n\n")
    return write_report(config.out_dir, Report(name, summary, head + report.markdown, diff=report.diff))
