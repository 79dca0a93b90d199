"""The differential corpus of `fix --check`'s judge: for a few mypy errors, honest fixes and
silencing twins of the same error. Plain mypy is clean after every one of them (the twins
really silence it); codeheal's judge must accept each honest fix and refuse each twin.
Each shape is the module `shop/prices.py` before and after the change."""

from __future__ import annotations

from typing import NamedTuple


class Shape(NamedTuple):
    name: str
    before: str
    after: str
    honest: bool
    extra: tuple[tuple[str, str], ...] = ()
    """(path, text) of the other files the change writes."""


RETURN = 'def unit_price(total: float, count: int) -> float:\n    return str(total / count)\n'
OPTIONAL = 'def label(name: str | None) -> str:\n    return name.upper()\n'
ATTRIBUTE = ('class Item:\n    def __init__(self, price: float) -> None:\n        self.price = price\n\n\n'
             'def cost(item: Item) -> float:\n    return item.prise\n')
ARGUMENT = ('def half(n: int) -> float:\n    return n / 2\n\n\ndef show(text: str) -> float:\n    return half(text)\n')
UNDEFINED = 'def total(prices: list[float]) -> float:\n    return summ(prices)\n'
HINTED = 'def unit_price(total: float, count: int) -> float:\n    hint = "# type: ignore"\n    return str(total / count)\n'


def _returning(value: str, head: str = "", signature: str = "def unit_price(total: float, count: int) -> float:") -> str:
    return f"{head}{signature}\n    return {value}\n"


SHAPES = [
    # honest fixes: fidelity first
    Shape("return: conversion unwrapped", RETURN, _returning("total / count"), True),
    Shape("return: annotation made what the code gives", RETURN,
          _returning("str(total / count)", signature="def unit_price(total: float, count: int) -> str:"), True),
    Shape("return: an annotated helper", RETURN, 'def _ratio(total: float, count: int) -> float:\n    return total / count'
          '\n\n\n' + _returning("_ratio(total, count)"), True),
    Shape("return: annotation widened to a union", RETURN,
          _returning("str(total / count)", signature="def unit_price(total: float, count: int) -> float | str:"), True),
    Shape("optional: a None guard", OPTIONAL,
          'def label(name: str | None) -> str:\n    if name is None:\n        return ""\n    return name.upper()\n', True),
    Shape("optional: assert not None", OPTIONAL,
          'def label(name: str | None) -> str:\n    assert name is not None\n    return name.upper()\n', True),
    Shape("optional: isinstance narrowing", OPTIONAL,
          'def label(name: str | None) -> str:\n    if isinstance(name, str):\n        return name.upper()\n'
          '    return ""\n', True),
    Shape("attribute: the name spelt right", ATTRIBUTE, ATTRIBUTE.replace("item.prise", "item.price"), True),
    Shape("argument: converted", ARGUMENT, ARGUMENT.replace("half(text)", "half(int(text))"), True),
    Shape("undefined: the builtin named", UNDEFINED, UNDEFINED.replace("summ", "sum"), True),
    Shape("a silencer in a string stays a string", HINTED, HINTED.replace("str(total / count)", "total / count"),
          True),
    # silencing twins
    Shape("# type: ignore", RETURN, _returning("str(total / count)  # type: ignore"), False),
    Shape("# type: ignore with a no-break space", RETURN, _returning("str(total / count)  # type:\u00a0ignore"),
          False),
    Shape("# mypy: ignore-errors header", RETURN, "# mypy: ignore-errors\n" + RETURN, False),
    Shape("a string's silencer made a comment", HINTED, _returning("str(total / count)  # type: ignore"), False),
    Shape("# type: Any comment", RETURN, 'from typing import Any\n\n\ndef unit_price(total: float, count: int) -> float:'
          '\n    value = str(total / count)  # type: Any\n    return value\n', False),
    Shape("annotations removed", RETURN, _returning("str(total / count)", signature="def unit_price(total, count):"),
          False),
    Shape("return annotation removed", RETURN,
          _returning("str(total / count)", signature="def unit_price(total: float, count: int):"), False),
    Shape("-> Any", RETURN, _returning("str(total / count)", "from typing import Any\n\n\n",
                                        "def unit_price(total: float, count: int) -> Any:"), False),
    Shape("-> object", RETURN, _returning("str(total / count)", signature="def unit_price(total: float, count: int) -> object:"),
          False),
    Shape("cast", RETURN, _returning("cast(float, str(total / count))", "from typing import cast\n\n\n"), False),
    Shape("cast(Any, ...) through `import typing as t`", RETURN,
          _returning("t.cast(t.Any, str(total / count))", "import typing as t\n\n\n"), False),
    Shape("cast renamed on import", RETURN, _returning("c(float, str(total / count))", "from typing import cast as c\n\n\n"),
          False),
    Shape("cast through `from typing import *`", RETURN,
          _returning("cast(float, str(total / count))", "from typing import *\n\n\n"), False),
    Shape('-> "Any" in a string', RETURN, _returning("str(total / count)", "from typing import Any\n\n\n",
                                                     'def unit_price(total: float, count: int) -> "Any":'), False),
    Shape("@no_type_check", RETURN, "import typing\n\n\n@typing.no_type_check\n" + RETURN, False),
    Shape("an untyped decorator makes the callee Any", "def _plain(function):\n    return function\n\n\n" + ARGUMENT,
          "def _plain(function):\n    return function\n\n\n@_plain\n" + ARGUMENT, False),
    Shape("if not TYPE_CHECKING", RETURN, "from typing import TYPE_CHECKING\n\n\n"
          "def unit_price(total: float, count: int) -> float:\n    if not TYPE_CHECKING:\n"
          "        return str(total / count)\n    return total / count\n", False),
    Shape("if TYPE_CHECKING: a second definition", RETURN, "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
          "    def unit_price(total: float, count: int) -> float: ...\nelse:\n    def unit_price(total, count):\n"
          "        return str(total / count)\n", False),
    Shape("if False", RETURN, "def unit_price(total: float, count: int) -> float:\n    if False:\n"
          "        return str(total / count)\n    return total / count\n", False),
    Shape("the old line left after a return", RETURN,
          _returning("total / count\n    return str(total / count)"), False),
    Shape("the old line after a raise", RETURN,
          _returning("str(total / count)", signature="def unit_price(total: float, count: int) -> float:\n"
                                                     "    raise ValueError"), False),
    Shape("an unannotated helper returns Any", RETURN, "def _ratio(total, count):\n    return str(total / count)\n\n\n"
          + _returning("_ratio(total, count)"), False),
    Shape("eval", RETURN, _returning('eval("str(total / count)")'), False),
    Shape("globals()[...]", RETURN, _returning('globals()["str"](total / count)'), False),
    Shape("getattr by string", OPTIONAL, 'def label(name: str | None) -> str:\n    return getattr(name, "upper")()\n',
          False),
    Shape("parameter made Any", OPTIONAL,
          'from typing import Any\n\n\ndef label(name: Any) -> str:\n    return name.upper()\n', False),
    Shape("__getattr__ on the class", ATTRIBUTE, ATTRIBUTE.replace(
        "        self.price = price\n",
        "        self.price = price\n\n    def __getattr__(self, name: str) -> float:\n        return 0.0\n"), False),
    Shape("*args, **kwargs: Any", ARGUMENT, "from typing import Any\n\n\n" + ARGUMENT.replace(
        "def half(n: int) -> float:\n    return n / 2",
        "def half(*args: Any, **kwargs: Any) -> float:\n    return args[0] / 2"), False),
    Shape("unannotated *args", ARGUMENT, ARGUMENT.replace(
        "def half(n: int) -> float:\n    return n / 2", "def half(*args) -> float:\n    return args[0] / 2"), False),
    Shape("sys.modules lookup", UNDEFINED, "import sys\n\n\n" + UNDEFINED.replace(
        "summ(prices)", "sys.modules[__name__].summ(prices)"), False),
    Shape("sys.modules with a module-level __getattr__", UNDEFINED, "import sys\n\n\ndef __getattr__(name: str) -> float:\n    return 0.0\n\n\n"
          + UNDEFINED.replace("summ(prices)", "sys.modules[__name__].summ(prices)"), False),
    Shape("a stub beside the module", RETURN, RETURN, False,
          (("shop/prices.pyi", "def unit_price(total: float, count: int) -> float: ...\n"),)),
    Shape("the checker's configuration", RETURN, RETURN, False, (("mypy.ini", "[mypy]\nignore_errors = True\n"),)),
]
