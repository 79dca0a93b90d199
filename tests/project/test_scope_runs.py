"""The scope is what runs: a right fix of a function the failing tests executed is never refused
for scope, however the tests reached it (a helper in the test file, a fixture, conftest)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal.cli import main
from codeheal.forms.project.executed import executed_functions

DUMP = '''"""Dumps of the log."""


def parse_line(line):
    stamp, _, text = line.partition(" ")
    return int(stamp), text.upper()


def read_dump(text):
    rows = []
    for line in text.splitlines():
        if not line:
            continue
        stamp, body = parse_line(line)
        rows.append((stamp, body))
    rows.sort()
    return rows


def count(rows):
    return len(rows)
'''
FIXED = ("```python\n# logbook/dump.py\ndef parse_line(line):\n    stamp, _, text = line.partition(\" \")\n"
         "    return int(stamp), text\n```")
PASSING = "\n\n\ndef test_parse_line():\n    assert parse_line('1 a')[0] == 1\n"
THROUGH = {
    "a helper in the test file": (
        "", ("from logbook.dump import parse_line, read_dump\n\n\ndef records():\n    return read_dump('2 b\\n1 a\\n')\n"
             "\n\ndef test_records():\n    assert records() == [(1, 'a'), (2, 'b')]\n" + PASSING)),
    "a conftest fixture": (
        ("import pytest\n\nfrom logbook.dump import read_dump\n\n\n@pytest.fixture\ndef rows():\n"
         "    return read_dump('2 b\\n1 a\\n')\n"),
        "from logbook.dump import count, parse_line\n\n\ndef test_rows(rows):\n    assert count(rows) == 2\n"
        "    assert rows == [(1, 'a'), (2, 'b')]\n"
        + PASSING),
}


def test_the_functions_a_failing_test_executed_are_read_from_its_coverage() -> None:
    files = {"logbook/dump.py": DUMP, "tests/test_log.py": ""}
    coverage = {"tests/test_log.py::test_rows": {"logbook/dump.py": {10, 11, 14}, "tests/test_log.py": {2}},
                "tests/test_log.py::test_parse_line": {"logbook/dump.py": {5, 6}}}
    assert executed_functions(coverage, ["tests/test_log.py::test_rows"], files) == {
        "logbook/dump.py": ["read_dump"]}
    assert executed_functions(coverage, [], files) == {}


@pytest.mark.parametrize("through", THROUGH)
def test_fix_heals_code_the_tests_reach_through(
    through: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    conftest, tests = THROUGH[through]
    project = tmp_path / "proj"
    for path, text in {"logbook/__init__.py": "", "logbook/dump.py": DUMP, "tests/conftest.py": conftest,
                       "tests/test_log.py": tests}.items():
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(text)

    def script(body: dict) -> str:
        return FIXED if is_fix_actor(body["messages"]) else "read_dump drops the first row."

    with ScriptedServer(script) as server:
        code = main(["fix", str(project), "--test", "python -m pytest -q", "--model", "scripted", "--base-url",
                     server.url, "--mutants", "0", "--checkpointer", str(tmp_path / "c.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "-    return int(stamp), text.upper()\n+    return int(stamp), text\n" in out
