"""The slow test files, from a full run's JUnit XML: `python tests/slow_files.py JUNIT_XML` writes
tests/slow_files.txt, each file whose tests took over SLOW_FILE_SECONDS in all (conftest.py
marks their tests `slow`, which `pytest -m "not slow"` leaves out)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

SLOW_FILE_SECONDS = 3.0


def slow_files(junit_xml: Path) -> list[str]:
    """The test files whose test cases took more than SLOW_FILE_SECONDS in all."""
    seconds: Counter[str] = Counter()
    for case in ET.parse(junit_xml).iter("testcase"):
        module = case.get("classname", "").split(".")
        while module and not module[-1].startswith("test_"):  # a test class's name ends the dotted path
            module.pop()
        if module:
            seconds["/".join(module) + ".py"] += float(case.get("time") or 0)
    return sorted(name for name, total in seconds.items() if total > SLOW_FILE_SECONDS)


if __name__ == "__main__":
    found = slow_files(Path(sys.argv[1]))
    Path(__file__).with_name("slow_files.txt").write_text("".join(f"{name}\n" for name in found), encoding="utf-8")
    print(f"{len(found)} slow files")
