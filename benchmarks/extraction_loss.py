"""Extraction loss: how many recorded replies held a solution that the code extraction lost.

    python benchmarks/extraction_loss.py benchmarks/results/humaneval-tuning/humaneval.jsonl

Every reply of every attempt is read as the module form reads it and by lenient readings
(codeheal/bench/extraction_loss.py); each reading is scored by HumanEval's hidden check. Writes
extraction_loss.json beside the records.
"""

import sys
from pathlib import Path

from codeheal.bench.extraction_loss import LOSS_FILE, measure_file

if __name__ == "__main__":
    records = Path(sys.argv[1])
    result = measure_file(records, records.parent / LOSS_FILE)
    print({k: v for k, v in sorted(result["all"].items())})
