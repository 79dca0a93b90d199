"""Graph overhead: a plain Python loop vs the codeheal graph with a SQLite checkpointer, same
scripted model and sandbox, 20 interleaved runs; writes benchmarks/results/loop_overhead.json.

    .venv/bin/python benchmarks/loop_overhead.py
"""

import json
import sys
from pathlib import Path

from codeheal.bench.overhead import measure

if __name__ == "__main__":
    result = measure(runs=int(sys.argv[1]) if len(sys.argv) > 1 else 20)
    out = Path(__file__).parent / "results" / "loop_overhead.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
