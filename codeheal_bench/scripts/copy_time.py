"""How long a project's copy takes to reach the sandbox: a 2,000-file project (1,900 Python
modules of 2,188 bytes and 100 binary fixtures of 16 KiB: 5.5 MiB, under the 8 MiB cap), read
into memory (`read_project`) and run at its own path in the local sandbox (bubblewrap where
present), against the same job with no files. Median and p95 over the runs, after a warm-up.

Writes benchmarks/results/copy_time.json. Usage: python codeheal_bench/scripts/copy_time.py [runs]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from sandbox_overhead import timed

from codeheal.forms.project.snapshot import read_project
from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import Job

RESULT = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "copy_time.json"
MODULES, FIXTURES = 1900, 100
MODULE = "".join(f"def f{i}(x):\n    return x + {i}  # a line of a module of about two KiB\n" for i in range(32))


def make_project(root: Path) -> None:
    for i in range(MODULES):
        path = root / f"pkg{i // 100}" / f"mod{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MODULE)
    for i in range(FIXTURES):
        path = root / "tests" / "data" / f"fixture{i}.bin"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(16 * 1024))


def main(runs: int = 20) -> dict:
    sandbox = LocalSandbox()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "project"
        make_project(root)
        snapshot = read_project(root)
        files = {**snapshot.data, **snapshot.files}
        assert len(files) == MODULES + FIXTURES, len(files)
        check = "import os; assert os.path.isfile('tests/data/fixture0.bin')"
        full = Job(files=files, python_args=("-c", check), timeout_s=60, workdir=str(snapshot.root))
        empty = Job(files={}, python_args=("-c", "pass"), timeout_s=60, workdir=str(snapshot.root))
        assert sandbox.run(full).exit_code == 0
        result = {
            "files": len(files),
            "bytes": snapshot.total_bytes,
            "isolation": sandbox.isolation,
            "read_project": timed(lambda: read_project(root), runs),
            "job_with_the_files": timed(lambda: sandbox.run(full), runs),
            "job_without_files": timed(lambda: sandbox.run(empty), runs),
        }
    result["copy_ms_median"] = round(
        result["read_project"]["median_ms"] + result["job_with_the_files"]["median_ms"]
        - result["job_without_files"]["median_ms"], 1)
    RESULT.write_text(json.dumps(result, indent=2) + "\n")
    return result


if __name__ == "__main__":
    print(json.dumps(main(*(int(a) for a in sys.argv[1:])), indent=2))
