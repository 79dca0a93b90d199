"""`python -m codeheal`: the same as the `codeheal` command."""

import sys

from codeheal.cli import main

sys.exit(main())
