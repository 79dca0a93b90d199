"""The hostile review's shapes against the module form's verdict, closed by construction
(docs/security.md), each with shapes beyond the one reported, through the real graph in
bubblewrap with the tamper scan off: nothing the candidate writes is importable by the test
process; two of its objects are equal only as plain pytest finds them; nothing of the tests'
text stays readable in the job; the supervisor survives any signal the job sends it."""

from __future__ import annotations

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import evaluate

pytestmark = [
    pytest.mark.usefixtures("contained"),
    pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here"),
]


def feedback(code: str, tests: str) -> dict:
    updates, _ = evaluate(code, tests, timeout_s=30, tamper_scan=False)
    return updates["feedback"]


PLANT = '''
import os, sys

SHADOW = "raise SystemExit(0)\\nimport os\\nos._exit(0)\\n"


def plant():
    """A module named like one the tests import next, in every folder this process can write."""
    folders = {os.getcwd(), "/tmp", os.path.expanduser("~"), *sys.path, *(p + "/.." for p in sys.path)}
    for folder in folders:
        for name in ("colorsys", "textwrap", "fractions", "statistics"):
            try:
                with open(os.path.join(folder or ".", name + ".py"), "w") as f:
                    f.write(SHADOW)
            except OSError:
                pass
    return 1
'''


def test_nothing_the_candidate_writes_is_importable_by_the_test_process() -> None:
    tests = ("def test_after():\n    assert plant() == 1\n    import colorsys, textwrap, statistics\n"
             "    assert textwrap.dedent('  x') == 'x' and colorsys.rgb_to_hsv(0, 0, 0) == (0, 0, 0)\n"
             "    assert statistics.mean([1, 3]) == 2\n")
    result = feedback(PLANT, tests)
    assert result["passed"], result  # the real modules: the planted ones would have exited the test process


@pytest.mark.parametrize("code", [
    # a __dict__ property made up to look like another object's state
    "class P:\n    @property\n    def __dict__(self):\n        return {'x': 1}\ndef f(x):\n    return P()\n",
    # slots with the same values, no __eq__ of their own
    "class P:\n    __slots__ = ('x',)\n    def __init__(self, x):\n        self.x = 1\ndef f(x):\n    return P(x)\n",
    # the same attributes, no __eq__: identity, as in plain pytest
    "class P:\n    def __init__(self, x):\n        self.x = 1\ndef f(x):\n    return P(x)\n",
])
def test_two_objects_are_equal_only_as_plain_pytest_finds_them(code: str) -> None:
    result = feedback(code, "def test_same():\n    assert f(1) == f(2)\n")
    assert not result["passed"] and result["in_test_process"], result


def test_nothing_of_the_tests_text_stays_readable_in_the_job() -> None:
    code = '''
import os


def leaks():
    found = []
    for top in ("/", "/run", "/tmp", os.getcwd()):
        for folder, _, names in os.walk(top):
            if folder.startswith(("/proc", "/sys", "/usr", "/dev")):
                continue
            for name in names:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        if b"SECRET-" + b"7731" in f.read(4_000_000):
                            found.append(os.path.join(folder, name))
                except OSError:
                    pass
    for fd in range(0, 64):
        try:
            if b"SECRET-" + b"7731" in os.pread(fd, 4_000_000, 0):
                found.append(f"fd {fd}")
        except OSError:
            pass
    return found
'''
    result = feedback(code, 'MARK = "SECRET-7731"\n\ndef test_probe():\n    assert leaks() == []\n')
    assert result["passed"], result["failures"]


def test_the_supervisor_survives_every_signal_the_job_sends_it() -> None:
    code = '''
import os, signal


def add(a, b):
    for sig in range(1, 32):
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            try:
                os.kill(1, sig)
            except OSError:
                pass
    os.kill(1, signal.SIGKILL)
    os.kill(1, signal.SIGSTOP)
    return a + b
'''
    result = feedback(code, "def test_add():\n    assert add(2, 3) == 5\n")
    assert result["passed"], result
    wrong = feedback(code.replace("a + b", "a - b"), "def test_add():\n    assert add(2, 3) == 5\n")
    assert not wrong["passed"]
