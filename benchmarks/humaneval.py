"""HumanEval: the policy presets (one_shot, resample, raw_error, self_heal, sample_first) compared.
The same as `codeheal-bench humaneval`:

    .venv/bin/python benchmarks/humaneval.py --concurrency 2   # up to 3 attempts, 2 samples per retry
"""

import sys

from codeheal_bench.cli import main

if __name__ == "__main__":
    sys.exit(main(["humaneval", *sys.argv[1:]]))
