"""The fidelity corpus's per-family table: `python -m tests.fidelity.report [--isolation bwrap|basic]
[--every N]` from the repository root prints it (markdown) with the command, the commit and the
wall time."""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from tests.fidelity.corpus import ISOLATIONS, compare, table
from tests.fidelity.shapes import all_shapes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--isolation", choices=ISOLATIONS, action="append", help="default: both")
    parser.add_argument("--every", type=int, default=1, help="every Nth shape only (a sample)")
    parser.add_argument("--concurrency", type=int, default=3)
    args = parser.parse_args()
    start = time.monotonic()
    comparisons = compare(all_shapes()[::args.every], args.isolation or ISOLATIONS, args.concurrency)
    seconds = time.monotonic() - start
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    print(f"`{' '.join(['python -m tests.fidelity.report', *sys.argv[1:]])}` at commit {commit}: "
          f"{len(comparisons)} evaluations in {seconds:.0f} s\n")
    print(table(comparisons))


if __name__ == "__main__":
    main()
