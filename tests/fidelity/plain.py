"""Plain pytest, the ground truth: run in a trusted process of its own (`python plain.py OUT DIR...`),
it runs `pytest -q -p no:cacheprovider test_solution.py` in each DIR (solution.py beside it), one
after another, each with a fresh `solution` and `test_solution` module and the DIR first on
sys.path as pytest's own rootdir insertion puts it, and writes OUT: for each DIR, pytest's exit
code and the node ids of the tests (or collectors) that failed."""

from __future__ import annotations

import gc
import json
import os
import sys

import pytest


class Failed:
    """Records the node id of each report that failed, in any phase."""

    def __init__(self) -> None:
        self.ids: set[str] = set()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.ids.add(report.nodeid)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.ids.add(report.nodeid or "<collection>")


def run(directory: str) -> dict[str, object]:
    """Plain pytest's verdict on DIRECTORY's test_solution.py."""
    for name in ("solution", "test_solution"):
        sys.modules.pop(name, None)
    os.chdir(directory)
    gc.freeze()  # what earlier runs left is not this run's: pytest's gc.collect() at exit skips it
    path = list(sys.path)
    failed = Failed()
    code = pytest.main(["-q", "-p", "no:cacheprovider", "test_solution.py"], plugins=[failed])
    sys.path[:] = path
    for name in ("solution", "test_solution"):
        sys.modules.pop(name, None)
    return {"exit": int(code), "failed": sorted(failed.ids)}


if __name__ == "__main__":
    out, *directories = sys.argv[1:]
    start = os.getcwd()
    results = {directory: run(directory) for directory in directories}
    os.chdir(start)
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(results, handle)
