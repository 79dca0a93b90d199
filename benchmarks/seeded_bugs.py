"""Seeded bugs in two real libraries from PyPI (toolz, boltons): the same as `codeheal-bench
seeded` (codeheal_bench/seeded.py has the bugs, seeded_run.py the scoring).

    python benchmarks/seeded_bugs.py --check      # no model: each bug fails its test file
    python benchmarks/seeded_bugs.py [--only NAME ...] [--model M --base-url URL] [--max-attempts N]
"""

import sys

from codeheal_bench.cli import main

if __name__ == "__main__":
    sys.exit(main(["seeded", *sys.argv[1:]]))
