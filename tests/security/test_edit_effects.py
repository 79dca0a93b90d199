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


CLASS_SOURCE = SOURCE + '''

class Base:
    def total(self) -> int:
        return 0


class Priced(Base):
    def total(self) -> int:
        return 1
'''
CLASS_FILES = {"shop/pricing.py": CLASS_SOURCE}
META = "class Meta(type):\n    def __new__(mcs, name, bases, ns):\n        print('at import')\n        return super().__new__(mcs, name, bases, ns)\n"


@pytest.mark.parametrize("rewrite", [
    lambda s: s + "\n\n" + META + "\n\nclass Extra(metaclass=Meta):\n    pass\n",  # a metaclass
    lambda s: s + "\n\nclass Extra(Base):\n    pass\n",  # a new class with a base
    lambda s: s + "\n\nclass Extra(Cart, Base, flag=True):\n    pass\n",  # keywords for __init_subclass__
    lambda s: s + "\n\n@functools.total_ordering\nclass Extra:\n    pass\n",  # a decorator
    lambda s: s.replace("class Base:\n", "class Base:\n    def __init_subclass__(cls, **kw):\n"
                        "        print('at import')\n\n"),  # a hook run by Priced's statement
    lambda s: s.replace("class Cart:\n", "class Cart:\n    def __set_name__(self, owner, name):\n"
                        "        print('at import')\n\n"),  # a descriptor's hook
    lambda s: s.replace("    def total(self) -> int:\n        return 1\n",
                        "    def total(self) -> int:\n        return 2\n"),  # a method of a class with a base
    lambda s: s.replace("class Priced(Base):", "class Priced(Base, Cart):"),  # a changed base list
])
def test_class_statements_with_bases_keywords_or_decorators_run_at_import(rewrite) -> None:
    rewritten = rewrite(CLASS_SOURCE.replace("quantity > threshold", "quantity >= threshold"))
    with pytest.raises(EditRejected, match="runs when it is imported"):
        apply_reply(CLASS_FILES, reply(rewritten))


def test_a_plain_class_and_an_unchanged_subclass_still_allow_a_rewrite() -> None:
    rewritten = (CLASS_SOURCE.replace("quantity > threshold", "quantity >= threshold")
                 .replace("class Base:\n    def total(self) -> int:\n        return 0\n",
                          "class Base:\n    def total(self) -> int:\n        return -1\n")
                 + "\n\nclass Plain:\n    LIMIT = 3\n\n    def size(self) -> int:\n        return 1\n")
    edit = apply_reply(CLASS_FILES, reply(rewritten))
    assert "class Plain:" in edit.files["shop/pricing.py"]


def test_a_method_of_a_subclass_is_still_repaired_by_a_function_repair() -> None:
    edit = apply_reply(CLASS_FILES, reply("class Priced(Base):\n    def total(self) -> int:\n        return 2\n"))
    assert "return 2" in edit.files["shop/pricing.py"]
