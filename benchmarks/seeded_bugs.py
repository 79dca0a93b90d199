"""Seeded bugs in two real libraries from PyPI (toolz, boltons): `codeheal fix` on each bug with
the test file a user would name, scored healed, whole suite passing, exact restore
(codeheal/bench/seeded.py has the bugs, seeded_run.py the scoring). The sdists are fetched with
pip into a cache ($CODEHEAL_SEEDED_CACHE, else codeheal's user cache) and checked against their
pinned SHA-256. Results in benchmarks/results/seeded_bugs.{jsonl,json,md,diff}; resumable.

    python benchmarks/seeded_bugs.py --check      # no model: each bug fails its test file
    python benchmarks/seeded_bugs.py [--only NAME ...] [--model M --base-url URL] [--max-attempts N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

from codeheal.bench.seeded_run import (
    SUITE_TIMEOUT_S,
    SeededConfig,
    check_seeds,
    run_seeded,
)
from codeheal.context import fallback

RESULTS = Path(__file__).parent / "results"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the seeds (no model)")
    parser.add_argument("--only", nargs="+", default=(), metavar="NAME", help="only these bugs")
    parser.add_argument("--model", default="local")
    parser.add_argument("--base-url")
    parser.add_argument("--max-attempts", type=int, default=4)
    parser.add_argument("--timeout", type=float, default=None,
                        help="seconds per test run (default: derived from the run of the project as it is, "
                             "as a user gets it: policy.time_limit)")
    parser.add_argument("--mutants", type=int, default=fallback("mutants"),
                        help="mutations screened before the model (0: the model alone)")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    if args.check:
        problems = check_seeds(console, only=args.only, timeout_s=args.timeout or SUITE_TIMEOUT_S)
        for problem in problems:
            console.print(f"[red]{problem}[/red]")
        return 1 if problems else 0
    config = SeededConfig(out_dir=args.out, model=args.model, base_url=args.base_url,
                          max_attempts=args.max_attempts, timeout_s=args.timeout, mutants=args.mutants,
                          only=tuple(args.only))
    summary = run_seeded(config, console)
    console.print(f"healed {summary['healed']}/{summary['bugs']}, whole suite passing in "
                  f"{summary['healed_suite_passes']}, restored {summary['restored']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
