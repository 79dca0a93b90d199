"""The `codeheal bench` subcommands: the parsed flags turned into a benchmark run, its
summary printed."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console


def bench_humaneval(args: argparse.Namespace, console: Console) -> Path:
    """Run HumanEval as `codeheal bench humaneval` was asked; return the summary's path."""
    from codeheal.bench.humaneval import BenchConfig, run_benchmark

    config = BenchConfig(
        out_dir=Path(args.out), model=args.model, base_url=args.base_url,
        max_attempts=args.max_attempts, concurrency=args.concurrency, limit=args.limit,
        timeout_s=args.timeout, retry_samples=args.retry_samples, max_tokens=args.max_tokens,
        slice=args.slice, conditions=tuple(args.conditions),
    )
    summary = run_benchmark(config, console)
    for name, result in summary["conditions"].items():
        console.print(f"{name:<12} hidden {result['passed']}/{summary['problems']} "
                      f"(pass@1 {result['pass_at_1']:.3f}), mean attempts {result['mean_attempts']:.2f}, "
                      f"wall {result['wall_s']:.0f} s")
    return Path(args.out) / "humaneval.json"


def bench_quixbugs(args: argparse.Namespace, console: Console) -> Path:
    """Run QuixBugs as `codeheal bench quixbugs` was asked; return the summary's path."""
    from codeheal.bench.quixbugs_run import QuixConfig, run_quixbugs

    config = QuixConfig(
        out_dir=Path(args.out), model=args.model, base_url=args.base_url, max_attempts=args.max_attempts,
        timeout_s=args.timeout, mutants=args.mutants, data_dir=Path(args.data) if args.data else None, only=tuple(args.only),
    )
    summary = run_quixbugs(config, console)
    console.print(f"healed {summary['healed']}/{summary['programs']}, median diff of the healed "
                  f"{summary['median_changed_lines_healed']} changed lines, only the program touched in "
                  f"{summary['only_program_touched']}/{summary['programs']}")
    return Path(args.out) / "quixbugs.json"
