"""An edit is what it says: a function repair cannot add or change what runs when its module
is imported (decorators, default values, annotations), and a whole-file rewrite runs nothing
new at import; both are refused with a reason the model reads. Ordinary repairs still apply."""

from __future__ import annotations

import pytest

from codeheal.errors import EditRejected
from codeheal.forms.project.edits import apply_reply

SOURCE = '''"""Pricing."""
import functools

TIERS = [(10, 5), (20, 10)]


def cached(function):
    return functools.lru_cache(maxsize=None)(function)


@cached
def discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:
    for threshold, percent in TIERS:
        if quantity > threshold:
            return percent
    return floor


class Cart:
    @property
    def size(self) -> int:
        return 0
'''
FILES = {"shop/pricing.py": SOURCE}
BODY = ("    for threshold, percent in TIERS:\n        if quantity >= threshold:\n"
        "            return percent\n    return floor\n")
PATCH = "__import__('atexit').register(lambda: None)"


def reply(code: str, path: str = "shop/pricing.py") -> str:
    return f"```python\n# {path}\n{code}```\n"


@pytest.mark.parametrize("signature", [
    f"@{PATCH}\ndef discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:\n",
    f"@cached\n@{PATCH}\ndef discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:\n",
    "@functools.lru_cache(maxsize=1)\ndef discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:\n",
    "@staticmethod\ndef discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:\n",
    f"def discount(quantity: int, tiers: tuple = {PATCH}, *, floor: int = 0) -> int:\n",
    f"def discount(quantity: int, tiers: tuple = (), *, floor: int = {PATCH}) -> int:\n",
    f"def discount(quantity: {PATCH}, tiers: tuple = (), *, floor: int = 0) -> int:\n",
    f"def discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> {PATCH}:\n",
    "def discount(quantity: int, tiers: tuple = (lambda: 0)(), *, floor: int = 0) -> int:\n",
    "def discount(quantity: int, tiers: tuple = (), *args: print('x'), floor: int = 0) -> int:\n",
    "def discount(quantity: int, tiers: tuple = [x for x in open('/etc/passwd')], *, floor: int = 0) -> int:\n",
])
def test_a_function_repair_cannot_add_what_runs_at_import(signature: str) -> None:
    with pytest.raises(EditRejected, match="run when the module is imported"):
        apply_reply(FILES, reply(signature + BODY))


def test_a_method_repair_cannot_swap_its_decorator() -> None:
    code = "class Cart:\n    @functools.cached_property\n    def size(self) -> int:\n        return 1\n"
    with pytest.raises(EditRejected, match="run when the module is imported"):
        apply_reply(FILES, reply(code))


@pytest.mark.parametrize("signature", [
    "def discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:\n",  # as it was
    "@cached\ndef discount(quantity: int, tiers: tuple = (), *, floor: int = 0) -> int:\n",  # written out
    "def discount(quantity, tiers=(), *, floor=0):\n",  # annotations dropped
    "def discount(quantity: int, tiers: tuple = (1, 2), *, floor: int = -1) -> int:\n",  # literal defaults
    "def discount(quantity: int | None, tiers: list[int] = (), *, floor: int = 0) -> int:\n",  # inert annotations
])
def test_ordinary_repairs_still_apply(signature: str) -> None:
    edit = apply_reply(FILES, reply(signature + BODY))
    assert "quantity >= threshold" in edit.files["shop/pricing.py"]
    assert "@cached\ndef discount" in edit.files["shop/pricing.py"]


@pytest.mark.parametrize("added", [
    "import importlib\nimportlib.import_module('_py' + 'test.python').Function.runtest = lambda self: None\n",
    "print('imported')\n",
    "TIERS.append((5, 1))\n",
    "TIERS = sorted(TIERS)\n",
    "for _ in range(1):\n    pass\n",
    f"class Extra({PATCH}):\n    pass\n",
    f"class Extra:\n    hook = {PATCH}\n",
    f"@{PATCH}\ndef extra():\n    pass\n",
    "try:\n    import os\nexcept ImportError:\n    os = None\n",
])
def test_a_whole_file_rewrite_runs_nothing_new_at_import(added: str) -> None:
    rewritten = SOURCE.replace("quantity > threshold", "quantity >= threshold") + "\n" + added
    with pytest.raises(EditRejected, match="runs when it is imported"):
        apply_reply(FILES, reply(rewritten))


def test_a_whole_file_rewrite_may_change_constants_and_functions() -> None:
    rewritten = (SOURCE.replace("quantity > threshold", "quantity >= threshold")
                 .replace("TIERS = [(10, 5), (20, 10)]", "TIERS = [(20, 10), (10, 5)]\nLIMIT = 100")
                 + "\n\ndef helper(x: int = 0) -> int:\n    return x\n")
    edit = apply_reply(FILES, reply(rewritten))
    assert "LIMIT = 100" in edit.files["shop/pricing.py"]
