"""HumanEval: one_shot vs self_heal vs raw_error. The same as `codeheal bench humaneval`:

    .venv/bin/python benchmarks/humaneval.py --concurrency 2   # up to 3 attempts, 2 samples per retry
"""

import sys

from codeheal.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "humaneval", *sys.argv[1:]]))
