"""MBPP problems (Austin et al. 2021) as a single-assert benchmark: the loop sees one assert.

MBPP's data file (`mbpp.jsonl`, 974 problems, CC BY 4.0) is not shipped: `--data FILE` or
$CODEHEAL_MBPP_FILE names it. Only MBPP's test split (task ids 11-510) is read. Each problem's
first assert is the visible test, the only one the loop sees; all of its asserts (the three of
`test_list` and any of `challenge_test_list`) are the hidden test, run on the final code as a
HumanEval `check(candidate)` is, through the same guard (hidden.py). Slices as HumanEval's: even
task ids tune, odd ones report.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
from pathlib import Path

from codeheal.errors import ConfigError
from codeheal_bench.problems import Problem, Slice, slice_of, stretch

DATA_ENV = "CODEHEAL_MBPP_FILE"
TEST_SPLIT = range(11, 511)
"""MBPP's own split: task ids 11-510 are the test problems (1-10 prompt examples, the rest
training and validation)."""
TASK_TEMPLATE = (
    "{text}\n\nWrite it as the Python function `{entry_point}`, called as in the test below. Reply "
    "with the whole module."
)


def load_mbpp(data: Path | None, limit: int | None = None, part: Slice = "all") -> list[Problem]:
    """MBPP's test problems from `data` (else $CODEHEAL_MBPP_FILE), in task-id order: all, or one
    slice; then the first `limit`."""
    path = data or (Path(os.environ[DATA_ENV]) if os.environ.get(DATA_ENV) else None)
    if path is None:
        raise ConfigError(f"the MBPP benchmark needs MBPP's mbpp.jsonl: pass --data FILE or set {DATA_ENV}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"cannot read the MBPP data file {path}: {exc.strerror or exc}") from None
    try:
        items = [json.loads(line) for line in lines if line.strip()]
        problems = [mbpp_problem(item) for item in sorted(items, key=lambda i: i["task_id"])
                    if item["task_id"] in TEST_SPLIT]
    except (json.JSONDecodeError, KeyError, TypeError, SyntaxError, ValueError) as exc:
        raise ConfigError(f"{path} is not MBPP's mbpp.jsonl ({type(exc).__name__}: {exc})") from None
    if not problems:
        raise ConfigError(f"{path} holds none of MBPP's test problems (task ids 11-510)")
    return stretch([p for p in problems if part in ("all", slice_of(p.task_id))], limit)


def mbpp_problem(item: dict) -> Problem:
    """One MBPP record as a Problem: the first assert visible, every assert hidden."""
    asserts = [*item["test_list"], *item.get("challenge_test_list", [])]
    entry_point = called_name(item["test_list"][0], item["code"])
    setup = (item.get("test_setup_code") or "").strip()
    visible = "\n".join(filter(None, [setup, item["test_list"][0].strip()])) + "\n"
    return Problem(
        task_id=f"Mbpp/{item['task_id']}",
        prompt=item["text"],
        entry_point=entry_point,
        visible_tests=visible,
        visible_count=1,
        visible_source="inline",
        hidden_test=check_function(asserts, entry_point, setup),
        canonical_solution=item["code"],
        task=TASK_TEMPLATE.format(text=item["text"].strip(), entry_point=entry_point),
    )


def called_name(assert_line: str, code: str) -> str:
    """The function an MBPP assert tests: the first name it calls that the reference code
    defines (MBPP names some functions after builtins: `sum`, `max`)."""
    defined = {node.name for node in ast.walk(ast.parse(code)) if isinstance(node, ast.FunctionDef)}
    called = [node.func.id for node in ast.walk(ast.parse(assert_line.strip()))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)]
    named = [name for name in called if name in defined] or [name for name in called if not hasattr(builtins, name)]
    if not named:
        raise ValueError(f"no call of a function the reference defines in {assert_line!r}")
    return named[0]


def check_function(asserts: list[str], entry_point: str, setup: str) -> str:
    """HumanEval's form of a hidden test, `check(candidate)`, from MBPP's asserts: each call of
    the entry point becomes a call of `candidate`, so the guard the harness wraps it in holds."""

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.Name(id="candidate", ctx=node.ctx) if node.id == entry_point else node

    body = [ast.unparse(Rename().visit(ast.parse(line.strip()))) for line in asserts]
    lines = ["def check(candidate):", *(f"    {line}" for line in body)]
    return "\n".join(filter(None, [setup, "\n".join(lines)])) + "\n"
