"""The differential fidelity corpus's runner (issue 73): each shape's honest solution and wrong
twin judged by `codeheal.aevaluate` (default hollow_check) and by plain pytest in a trusted
process on the same files; the verdicts compared, overall and per failing test."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import codeheal
from codeheal import Context
from codeheal.errors import CodehealError
from tests.fidelity.shapes import FAMILIES, Shape, all_shapes

VARIANTS = ("honest", "wrong")
ISOLATIONS = ("bwrap", "basic")
PLAIN = Path(__file__).with_name("plain.py")
FILE_PREFIX = "test_solution.py::"


@dataclass(frozen=True)
class Verdict:
    """A verdict on one solution: passed, the failing tests' names (node-id tails, `test_x`,
    `TestX::test_y`), and what explains a failure (codeheal's error or first failure)."""

    passed: bool
    failing: frozenset[str]
    message: str = ""


@dataclass(frozen=True)
class Case:
    """One shape's solution (`variant`: honest or wrong) under one isolation mode."""

    shape: Shape
    variant: str
    isolation: str

    @property
    def code(self) -> str:
        return getattr(self.shape, self.variant)

    @property
    def id(self) -> str:
        return f"{self.shape.id}:{self.variant}:{self.isolation}"


@dataclass(frozen=True)
class Comparison:
    """A case's verdict from plain pytest and from codeheal."""

    case: Case
    plain: Verdict
    judged: Verdict

    @property
    def verdict_agrees(self) -> bool:
        return self.plain.passed == self.judged.passed

    @property
    def agrees(self) -> bool:
        """The overall verdict and the failing tests' names both agree (by the name pytest gives
        the test function: a failure names its test id's last part, a subtest's after a space)."""
        return self.verdict_agrees and _short(self.plain.failing) == _short(self.judged.failing)

    def explain(self) -> str:
        return (f"{self.case.id}: plain pytest {_cell(self.plain)}; codeheal {_cell(self.judged)}: "
                f"{self.judged.message}")


def _short(names: frozenset[str]) -> frozenset[str]:
    return frozenset(_test_function(name.split("::")[-1]) for name in names)


def _test_function(name: str) -> str:
    """`test_x[a b] n=1 (setup)` -> `test_x[a b]`: up to the first space outside brackets."""
    depth = 0
    for index, char in enumerate(name):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == " " and depth == 0:
            return name[:index]
    return name


def cases(shapes: Sequence[Shape], isolations: Sequence[str] = ISOLATIONS) -> list[Case]:
    return [Case(s, variant, isolation) for s in shapes for variant in VARIANTS for isolation in isolations]


def test_file(tests: str) -> str:
    """test_solution.py as a user of plain pytest writes it: the candidate's names imported."""
    return "from solution import *\n" + tests


def _plain_family(shapes: Sequence[Shape], root: Path) -> dict[tuple[str, str], Verdict]:
    directories = {}
    for s in shapes:
        for variant in VARIANTS:
            directory = root / s.family / f"{s.name}-{variant}"
            directory.mkdir(parents=True)
            (directory / "solution.py").write_text(getattr(s, variant), encoding="utf-8")
            (directory / "test_solution.py").write_text(test_file(s.tests), encoding="utf-8")
            directories[str(directory)] = (s.id, variant)
    out = root / f"{shapes[0].family}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    subprocess.run([sys.executable, str(PLAIN), str(out), *directories], env=env, cwd=root,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600, check=True)
    results = json.loads(out.read_text(encoding="utf-8"))
    return {directories[d]: Verdict(r["exit"] == 0, frozenset(i.removeprefix(FILE_PREFIX) for i in r["failed"]),
                                    f"pytest exit {r['exit']}")
            for d, r in results.items()}


def plain_verdicts(shapes: Sequence[Shape], workers: int = 2) -> dict[tuple[str, str], Verdict]:
    """Plain pytest's verdict per (shape id, variant): one trusted subprocess per family
    (tests/fidelity/plain.py), each shape in a directory of its own."""
    by_family: dict[str, list[Shape]] = {}
    for s in shapes:
        by_family.setdefault(s.family, []).append(s)
    with tempfile.TemporaryDirectory(prefix="fidelity-") as root, ThreadPoolExecutor(workers) as pool:
        verdicts: dict[tuple[str, str], Verdict] = {}
        for part in pool.map(lambda group: _plain_family(group, Path(root)), by_family.values()):
            verdicts.update(part)
        return verdicts


def _judged(feedback: dict) -> Verdict:
    failures = feedback.get("failures") or []
    first = next((f"{f['test']}: {f['exception']}: {f['message']}" for f in failures), "")
    message = feedback.get("error") or first
    return Verdict(bool(feedback["passed"]), frozenset(f["test"] for f in failures), message.splitlines()[0] if message else "")


async def ajudge(cases: Iterable[Case], concurrency: int = 3) -> dict[str, Verdict]:
    """codeheal's verdict per case id, `concurrency` evaluations at a time."""
    gate = asyncio.Semaphore(concurrency)

    async def one(case: Case) -> tuple[str, Verdict]:
        async with gate:
            try:
                feedback = await codeheal.aevaluate(case.code, case.shape.tests, context=Context(isolation=case.isolation))
            except CodehealError as error:  # an InputError or SandboxError is codeheal's verdict too: not a pass
                return case.id, Verdict(False, frozenset(), f"{type(error).__name__}: {error}".splitlines()[0])
            return case.id, _judged(feedback)

    return dict(await asyncio.gather(*(one(c) for c in cases)))


def compare(shapes: Sequence[Shape] | None = None, isolations: Sequence[str] = ISOLATIONS,
            concurrency: int = 3) -> list[Comparison]:
    """Every case of `shapes` (default: the whole corpus) under `isolations`, compared."""
    shapes = list(all_shapes() if shapes is None else shapes)
    plain = plain_verdicts(shapes)
    todo = cases(shapes, isolations)
    judged = asyncio.run(ajudge(todo, concurrency))
    return [Comparison(c, plain[(c.shape.id, c.variant)], judged[c.id]) for c in todo]


@dataclass
class FamilyCount:
    """One family's agreements (overall verdict and failing names) per variant."""

    family: str
    shapes: int = 0
    honest_agreed: int = 0
    honest_total: int = 0
    wrong_agreed: int = 0
    wrong_verdict_agreed: int = 0
    wrong_total: int = 0


def family_counts(comparisons: Iterable[Comparison]) -> dict[tuple[str, str], FamilyCount]:
    """Counts per (isolation, family), families in the corpus's order."""
    counts: dict[tuple[str, str], FamilyCount] = {}
    seen: set[str] = set()
    for c in sorted(comparisons, key=lambda c: (c.case.isolation, FAMILIES.index(c.case.shape.family))):
        count = counts.setdefault((c.case.isolation, c.case.shape.family), FamilyCount(c.case.shape.family))
        if (c.case.isolation, c.case.shape.id) not in seen:
            seen.add((c.case.isolation, c.case.shape.id))
            count.shapes += 1
        if c.case.variant == "honest":
            count.honest_total += 1
            count.honest_agreed += c.agrees
        else:
            count.wrong_total += 1
            count.wrong_agreed += c.agrees
            count.wrong_verdict_agreed += c.verdict_agrees
    return counts


def table(comparisons: Sequence[Comparison]) -> str:
    """The per-family markdown table, one per isolation mode, then every disagreement."""
    lines: list[str] = []
    counts = family_counts(comparisons)
    for isolation in dict.fromkeys(i for i, _ in counts):
        rows = [c for (i, _), c in counts.items() if i == isolation]
        total = FamilyCount("**all**", *(sum(getattr(r, f) for r in rows) for f in
                                          ("shapes", "honest_agreed", "honest_total", "wrong_agreed",
                                           "wrong_verdict_agreed", "wrong_total")))
        lines += [f"### isolation={isolation}", "",
                  "| family | shapes | honest agreed | wrong agreed (verdict and names) | wrong verdict agreed |",
                  "|---|---:|---:|---:|---:|"]
        lines += [f"| {r.family} | {r.shapes} | {r.honest_agreed}/{r.honest_total} | {r.wrong_agreed}/{r.wrong_total} "
                  f"| {r.wrong_verdict_agreed}/{r.wrong_total} |" for r in [*rows, total]]
        lines.append("")
    lines += ["### Disagreements", "", "| case | plain pytest | codeheal | codeheal's message |", "|---|---|---|---|"]
    for c in comparisons:
        if not c.agrees:
            lines.append(f"| {c.case.id} | {_cell(c.plain)} | {_cell(c.judged)} | {_escape(c.judged.message)[:160]} |")
    return "\n".join(lines) + "\n"


def _cell(verdict: Verdict) -> str:
    return ("pass" if verdict.passed else "fail") + (f" {', '.join(sorted(verdict.failing))}" if verdict.failing else "")


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
