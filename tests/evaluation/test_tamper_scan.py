"""The static tamper scan: what it flags, and ordinary code it leaves alone."""

from __future__ import annotations

import pytest

from codeheal.evaluation.tamper_scan import scan

FLAGGED = {
    "import pytest": "imports pytest",
    "from _pytest import runner": "imports from _pytest",
    "import sys\nsys.modules['x'] = None": "uses sys.modules",
    "import os\nos._exit(0)": "calls os._exit() while being imported",
    "import sys\nsys.exit(0)": "calls sys.exit() while being imported",
    "raise SystemExit(0)": "raises SystemExit while being imported",
    "import sys\nsys.settrace(None)": "uses sys.settrace",
    "import sys\nf = sys._getframe(1).f_globals": "uses sys._getframe",
    "import importlib\nimportlib.import_module('_pytest.python')": "names the module '_pytest.python'",
    "import gc\nobjs = gc.get_objects()": "uses gc.get_objects",
    "import os\nfd = os.environ['CODEHEAL_REPORT_FD']": "refers to 'CODEHEAL_'",
    "m = __import__('pytest')": "names the module 'pytest'",
}


@pytest.mark.parametrize("code", FLAGGED)
def test_harness_access_is_flagged(code: str) -> None:
    assert FLAGGED[code] in [f.what for f in scan(code)]


def test_ordinary_code_is_left_alone() -> None:
    code = (
        "import sys, inspect, os\n"
        "def main():\n    sys.exit(0)\n"
        "def add(a, b):\n    return a + b\n"
        "print(inspect.signature(add), os.path.join('a', 'b'), {}.items())\n"
        "if __name__ == '__main__':\n    sys.exit(main())\n"
    )
    assert scan(code) == []


LEGITIMATE = [
    "import builtins\nprint(builtins.len([]))",
    "import atexit\natexit.register(print, 'bye')",
    "import sys\nthis = sys.modules[__name__]",
    "import inspect\ndef caller():\n    return inspect.stack()[1].function",
    "HELP = 'run pytest -q to check'",
    "import os\ndef spawn():\n    if os.fork() == 0:\n        os._exit(0)",
]


@pytest.mark.parametrize("code", LEGITIMATE)
def test_legitimate_uses_of_the_same_modules_pass(code: str) -> None:
    assert scan(code) == []
