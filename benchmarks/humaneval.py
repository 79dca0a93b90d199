"""HumanEval: one_shot vs self_heal vs raw_error. The same as `codeheal bench humaneval`:

    .venv/bin/python benchmarks/humaneval.py --concurrency 2 --max-attempts 4
"""

import sys

from codeheal.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", "humaneval", *sys.argv[1:]]))
