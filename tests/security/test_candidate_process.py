"""The module form's candidate in a process of its own (evaluation/candidate_proxy.py and
candidate_host.py), through the real graph and the real bubblewrap sandbox, tamper scan off:
what it patches stays in its process; it reaches no test file, key, report descriptor or the
test process's memory; only plain data comes back, the candidate's objects as handles; a test
during which something did not cross faithfully is judged again with the candidate in the
test process, as plain pytest judges it (evaluation/routes.py), and says so; and ordinary
tests of every shape pass."""

from __future__ import annotations

import pytest
from bwrap_probe import bwrap_usable
from hostile_run import evaluate

pytestmark = [
    pytest.mark.usefixtures("contained"),
    pytest.mark.skipif(not bwrap_usable(), reason="bubblewrap is not usable here"),
]

TASK = '''
class Stack:
    def __init__(self, items=()):
        self.items = list(items)
    def push(self, x):
        self.items.append(x)
        return self
    def pop(self):
        if not self.items:
            raise IndexError("pop from an empty stack")
        return self.items.pop()
    def __len__(self):
        return len(self.items)
    def __iter__(self):
        return iter(list(self.items))
    def __getitem__(self, i):
        return self.items[i]
    @classmethod
    def of(cls, *items):
        return cls(items)


class EmptyError(LookupError):
    pass


class NoneLeft(EmptyError):
    pass


def first(xs):
    if not xs:
        raise NoneLeft("nothing in " + repr(xs))
    return xs[0]


def squares(n):
    for i in range(n):
        yield i * i


def naturals():
    i = 0
    while True:
        yield i
        i += 1


def sort_in_place(xs):
    xs.sort()


def count_into(counts, word):
    counts[word] = counts.get(word, 0) + 1


def apply(f, x):
    return f(x)


def depth(n):
    return 0 if n == 0 else 1 + depth(n - 1)


def make_adder(k):
    return lambda x: x + k


def parse(text):
    return int(text)
'''

ORDINARY = '''
import itertools
import pytest
from solution import Stack


def test_handles():
    s = Stack().push(1).push(2)
    assert len(s) == 2 and s.pop() == 2 and s.items == [1]
    assert list(Stack.of(3, 4)) == [3, 4] and Stack.of(3, 4)[1] == 4
    assert not (Stack.of(1, 2) == Stack.of(1, 2))  # no __eq__ of its own: identity, as in plain pytest
    assert isinstance(s, Stack) and s is s.push(5)
    with pytest.raises(IndexError):
        Stack().pop()


def test_exceptions():
    with pytest.raises(NoneLeft, match="nothing in"):
        first([])
    with pytest.raises(EmptyError):
        first([])
    with pytest.raises(LookupError):
        first([])
    with pytest.raises(ValueError):
        parse("x")
    with pytest.raises(RecursionError):
        depth(100_000)


def test_generators_and_functions():
    assert list(squares(4)) == [0, 1, 4, 9]
    assert list(itertools.islice(naturals(), 3)) == [0, 1, 2]
    g = squares(2)
    assert next(g) == 0 and next(g) == 1
    with pytest.raises(StopIteration):
        next(g)
    assert make_adder(2)(3) == 5
    assert apply(len, [1, 2, 3]) == 3
    assert depth(200) == 200


def test_changes_in_place():
    xs = [3, 1, 2]
    sort_in_place(xs)
    assert xs == [1, 2, 3]
    counts = {}
    count_into(counts, "a")
    count_into(counts=counts, word="a")
    assert counts == {"a": 2}
'''


def feedback(code: str, tests: str) -> dict:
    updates, _ = evaluate(code, tests, timeout_s=30, tamper_scan=False)
    return updates["feedback"]


def test_ordinary_tests_of_every_shape_pass_and_say_how_they_were_judged() -> None:
    result = feedback(TASK, ORDINARY)
    assert result["passed"] and result["passed_count"] == 4, result["failures"]
    assert result["in_test_process"].startswith("test_handles: ")  # its objects were used: judged as pytest does
    plain = feedback("def add(a, b):\n    return a + b\n", "def test_add():\n    assert add(2, 3) == 5\n")
    assert plain["passed"] and "in_test_process" not in plain  # plain data only: judged apart


PROBE = '''
import os


def probe():
    """Everything of the test side this process could reach: each entry is a leak."""
    found = []
    token = "EXPECTED-" + "0451"
    parent = os.getppid()
    for name in sorted(os.listdir(".")):
        try:
            with open(name, "rb") as f:
                if token.encode() in f.read():
                    found.append("file " + name)
        except OSError:
            pass
    for top in (".", "/tmp"):
        for folder, _, names in os.walk(top):
            for name in names:
                try:
                    with open(os.path.join(folder, name), "rb") as f:
                        if token.encode() in f.read():
                            found.append("file " + os.path.join(folder, name))
                except OSError:
                    pass
    for what in ("environ", "mem", "maps", "cwd", "root"):
        try:
            if what in ("cwd", "root"):
                os.listdir(f"/proc/{parent}/{what}")
            else:
                with open(f"/proc/{parent}/{what}", "rb") as f:
                    f.read(1)
            found.append("parent " + what)
        except OSError:
            pass
    try:
        found += ["parent fd " + fd for fd in os.listdir(f"/proc/{parent}/fd")]
    except OSError:
        pass
    found += [k for k in os.environ if "CODEHEAL" in k.upper()]
    mine = [fd for fd in os.listdir("/proc/self/fd") if int(fd) > 2]
    if len(mine) > 3:  # the two pipes and the listing's own
        found.append("descriptors " + " ".join(mine))
    return found
'''


def test_the_candidates_process_reaches_no_test_file_key_descriptor_or_memory_of_the_tests() -> None:
    tests = 'EXPECTED = "EXPECTED-0451"\n\ndef test_probe():\n    assert probe() == []\n'
    result = feedback(PROBE, tests)
    assert result["passed"], result["failures"]


@pytest.mark.parametrize("patch", [
    "import builtins\nbuiltins.len = lambda x: 2\nbuiltins.isinstance = lambda *a: True\n",
    "import unittest\nunittest.TestCase.assertEqual = lambda self, a, b, msg=None: None\n",
    "import sys, types\nsys.modules['pytest'] = types.ModuleType('pytest')\nsys.modules['codeheal_report'] = None\n",
    "import importlib\nimportlib.import_module('_pytest.python').Function.runtest = lambda self: None\n",
    "import codeheal_plain\ncodeheal_plain.plain = lambda obj: ['int', '5']\n",
    "import os\nfor fd in range(0, 64):\n    try:\n        os.write(fd, b'\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x10[\"ok\", [\"int\", \"5\"]]')\n"
    "    except OSError:\n        pass\n",
])
def test_what_the_candidate_patches_stays_in_its_process(patch: str) -> None:
    tests = ("import unittest\n"
             "class TestAdd(unittest.TestCase):\n"
             "    def test_add(self):\n        self.assertEqual(add(2, 3), 5)\n"
             "def test_len():\n    assert len([1, 2, 3]) == 3 and add(2, 3) == 5\n")
    result = feedback(patch + "def add(a, b):\n    return a - b\n", tests)
    assert not result["passed"] and result["passed_count"] == 0, result


LYING = [
    # an __eq__ that always agrees, as a result, inside a list, as a dict key's value
    ("class Yes:\n    def __eq__(self, o):\n        return True\n    __hash__ = object.__hash__\n"
     "def f():\n    return [Yes()]\n", "assert f() == [5]\n"),
    ("class Yes:\n    def __eq__(self, o):\n        return True\n    __hash__ = object.__hash__\n"
     "def f():\n    return {'a': Yes()}\n", "assert f() == {'a': 1}\n"),
    # a result of the candidate's own type that claims to be anything, compared both ways
    ("class Yes:\n    def __eq__(self, o):\n        return True\n    __ne__ = lambda s, o: False\n"
     "def f():\n    return Yes()\n", "assert 5 == f()\n"),
    ("class Yes:\n    def __eq__(self, o):\n        return True\n    __ne__ = lambda s, o: False\n"
     "def f():\n    return Yes()\n", "assert f() != 4\n"),  # plain pytest fails this one
    # truth of its object
    ("class T:\n    def __bool__(self):\n        return True\n"
     "def f():\n    return T()\n", "assert f()\n"),
    # an argument changed in place to hold an object that agrees with anything
    ("class Yes:\n    def __eq__(self, o):\n        return True\n    __hash__ = object.__hash__\n"
     "def fill(xs):\n    xs[:] = [Yes(), Yes(), Yes()]\n",
     "def test_fill():\n    xs = []\n    fill(xs)\n    assert xs == [1, 2, 3]\n"),
]


@pytest.mark.parametrize(("code", "tests"), LYING)
def test_comparison_methods_that_ignore_what_they_compare_are_refused_by_the_default_scan(code: str, tests: str) -> None:
    updates, _ = evaluate(code, tests, timeout_s=30)
    result = updates["feedback"]
    assert not result["passed"] and "ignores" in (result["error"] or "") + str(result["failures"]), result


@pytest.mark.parametrize(("code", "tests"), LYING)
def test_without_the_scan_the_test_process_judges_them_as_plain_pytest_does(code: str, tests: str) -> None:
    result = feedback(code, tests)  # plain pytest passes these too (but `!= 4`): the tests cannot tell
    assert result["passed"] is ("!= 4" not in tests) and result["in_test_process"], result


@pytest.mark.parametrize(("code", "tests", "plain_pytest"), [
    # a callback into the test's code crosses by being judged in the test process
    ("def apply(f, x):\n    return f(x)\n",
     "import pytest\ndef test_cb():\n    with pytest.raises(Exception):\n        apply(lambda x: x, 1)\n", False),
    ("def apply(f, x):\n    return f(x)\n", "def test_cb():\n    assert apply(lambda x: x * 2, 1) == 2\n", True),
    # in place: the candidate changes a nested list the test holds separately
    ("def grow(xs):\n    xs[0].append(1)\n",
     "def test_nested():\n    inner = []\n    xs = [inner]\n    grow(xs)\n    assert inner == [1]\n", True),
    # a candidate exception that is not the one the test expects
    ("class Oops(Exception):\n    pass\ndef f():\n    raise Oops('x')\n",
     "import pytest\ndef test_raises():\n    with pytest.raises(ValueError):\n        f()\n", False),
    # its process killed mid-call, exiting 0, or recursing without end in a result
    ("import os\ndef f():\n    os._exit(0)\n", "assert f() == 1\n", False),
    ("import os, signal\ndef f():\n    os.kill(os.getppid(), signal.SIGKILL)\n", "assert f() == 1\n", False),
    ("def f():\n    xs = []\n    xs.append(xs)\n    return xs\n", "assert f() == [[]]\n", False),
    # StopIteration from a call ends the tests' own map: plain pytest passes this, and so does codeheal
    ("def is_even(n):\n    raise StopIteration\n", "def test_all():\n    assert all(map(is_even, [1, 3, 5]))\n", True),
    # an object of length 0 is false, in plain pytest as here
    ("class Empty:\n    def __len__(self):\n        return 0\ndef f():\n    return Empty()\n",
     "def test_empty():\n    assert not f()\n", True),
])
def test_what_does_not_cross_faithfully_is_judged_as_plain_pytest_judges_it(code: str, tests: str,
                                                                           plain_pytest: bool) -> None:
    result = feedback(code, tests)
    assert result["passed"] is plain_pytest, result

FRESH_SHAPES = [
    # a class of its own named like a builtin exception, where the tests expect the builtin
    ("class ValueError(Exception):\n    pass\ndef parse(s):\n    raise ValueError(s)\n",
     "import pytest\ndef test_raises():\n    with pytest.raises(ValueError):\n        parse('x')\n    assert parse('1') == 1\n"),
    # an argument changed in place before it raises, where the tests check it was left alone
    ("def reset(d):\n    d.clear()\n    d[1] = 2\n    return 1 / 0\n",
     "import pytest\ndef test_reset():\n    d = {}\n    with pytest.raises(Exception):\n        reset(d)\n    assert d == {}\n"),
    # module marks and fixtures of its own in the tests' namespace
    ("import pytest\npytestmark = pytest.mark.skip('not today')\ndef add(a, b):\n    return a - b\n",
     "def test_add():\n    assert add(2, 3) == 5\n"),
    # a check() of its own, where the tests bring theirs (HumanEval's shape)
    ("def check(candidate):\n    pass\ndef add(a, b):\n    return a - b\n",
     "def check(candidate):\n    assert candidate(2, 3) == 5\n\ndef test_check():\n    check(add)\n"),
    # an answer frame nested past any parser's depth, written by a helper thread before the real one
    ("import os, threading\ndef f():\n    bomb = b'[' * 200000 + b']' * 200000\n"
     "    for fd in range(3, 32):\n        try:\n            os.write(fd, len(bomb).to_bytes(8, 'big') + bomb)\n"
     "        except OSError:\n            pass\n    return 5\n", "assert f() == 5\n"),
]


@pytest.mark.parametrize(("code", "tests"), FRESH_SHAPES)
def test_a_fresh_reviewers_shapes_fail(code: str, tests: str) -> None:
    result = feedback(code, tests)
    assert not result["passed"], result
