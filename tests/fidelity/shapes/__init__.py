"""The fidelity corpus's shapes (issue 73): ordinary ways real test suites are written, one module
per family, each shape its tests, an honest solution plain pytest passes and a wrong twin (a
plausible slip, not sabotage) plain pytest fails."""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from textwrap import dedent

FAMILIES = (
    "stdlib_values",
    "own_classes",
    "exceptions",
    "callables_in",
    "generators",
    "async_code",
    "pytest_tools",
    "unittest_style",
    "state",
    "properties",
    "algorithms",
)
"""The family modules, in the report's order."""


@dataclass(frozen=True)
class Shape:
    """One shape: `tests` as a user writes them (the candidate's names in scope, as after
    `from solution import *`), `honest` code plain pytest passes, `wrong` code it fails."""

    family: str
    name: str
    tests: str
    honest: str
    wrong: str

    @property
    def id(self) -> str:
        return f"{self.family}/{self.name}"


def shape(family: str, name: str, tests: str, honest: str, wrong: str) -> Shape:
    """A Shape from indented triple-quoted texts."""
    return Shape(family, name, dedent(tests).lstrip("\n"), dedent(honest).lstrip("\n"), dedent(wrong).lstrip("\n"))


def all_shapes() -> list[Shape]:
    """Every family's shapes, in FAMILIES' order."""
    return [s for family in FAMILIES for s in importlib.import_module(f"{__name__}.{family}").SHAPES]
