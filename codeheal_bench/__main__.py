"""`python -m codeheal_bench`: the same as `codeheal-bench`."""

import sys

from codeheal_bench.cli import main

sys.exit(main())
