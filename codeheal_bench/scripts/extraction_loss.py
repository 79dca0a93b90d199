"""Extraction loss: how many recorded replies held a solution that the code extraction lost.

    python codeheal_bench/scripts/extraction_loss.py benchmarks/results/humaneval-tuning/humaneval.jsonl

Every recorded reply is re-read by lenient readings besides the module form's own, each scored
by the same hidden check (codeheal_bench.hidden). A reply whose own reading fails the check
while a lenient one passes held a right solution that the extraction lost (cut, unfenced, or
spliced wrongly under the stub). Writes extraction_loss.json beside the records. It measures
codeheal's own extraction, so it reads codeheal's internals (the fences, the module form's
reading of a reply): a script here, not part of the bench package.
"""

from __future__ import annotations

import ast
import asyncio
import json
import re
import sys
import textwrap
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from codeheal.fences import FENCE, python_blocks
from codeheal.forms.module.form import module_candidate
from codeheal.prompting.extraction import without_self_tests

from codeheal_bench.hidden import hidden_verdict
from codeheal_bench.humaneval_records import ProblemRecord
from codeheal_bench.problems import Problem, load_problems

LOSS_FILE = "extraction_loss.json"
FENCE_LINE = re.compile(r"^\s*```.*$", re.MULTILINE)


def lenient_readings(reply: str) -> dict[str, str]:
    """Other readings of a reply's code, by name, each kept only when it parses: every fenced
    block joined (usage too), the reply with its fence lines dropped, a reply cut short
    trimmed back to its last complete statement, and a body written at column 0 under a
    prefilled stub indented into the function, or one the model wrote anew inside it (a nested
    def of the same name, which leaves the stub's function returning None) lifted out, and the
    code without its top-level calls (usage examples that run, and may crash, on import)."""
    blocks = [m.group(2) for m in python_blocks(reply)]
    readings = {
        "all_blocks": "\n\n".join(blocks),
        "fence_lines_dropped": FENCE_LINE.sub("", reply),
        "trimmed": _trimmed(blocks[-1] if blocks else reply),
        "reindented": _reindented(reply),
        "nested_hoisted": _nested_hoisted(reply),
        "top_level_calls_dropped": _without_top_level_calls("\n\n".join(blocks) if blocks else reply),
    }
    return {name: without_self_tests(code) for name, code in readings.items() if code and _parses(code)}


def _parses(code: str) -> bool:
    """Whether `code` compiles (a `return` at module level parses, but does not compile)."""
    try:
        compile(code, "solution.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _trimmed(code: str) -> str:
    """The longest prefix of whole lines that parses (a reply cut by its token limit)."""
    lines = code.splitlines()
    for end in range(len(lines), 0, -1):
        prefix = "\n".join(lines[:end])
        if _parses(prefix):
            return prefix
    return ""


def _reindented(reply: str) -> str:
    """A prefilled stub's function whose body the model wrote at column 0: the lines after
    the docstring, up to the next top-level definition, indented by four spaces."""
    match = FENCE.search(reply)
    if match is None:
        return ""
    code = match.group(2)
    stub_end = code.find('"""', code.find('"""') + 3) if '"""' in code else -1
    if stub_end < 0:
        return ""
    head, _, tail = code[stub_end + 3:].partition("\n")
    body = tail.splitlines()
    if not body or not body[0].strip() or body[0].startswith((" ", "\t")):
        return ""
    indented = []
    for number, line in enumerate(body):
        if number and line.startswith(("def ", "class ", "import ", "from ")):
            indented += body[number:]
            break
        indented.append(f"    {line}" if line.strip() else line)
    return code[:stub_end + 3] + head + "\n" + "\n".join(indented)


def _nested_hoisted(reply: str) -> str:
    """The stub's last function, when its body is a docstring and a nested def of the same
    name (the model wrote the whole function again, indented): that def dedented to replace it."""
    blocks = python_blocks(reply)
    if not blocks:
        return ""
    code = blocks[0].group(2)
    try:
        module = ast.parse(code)
    except SyntaxError:
        return ""
    functions = [n for n in module.body if isinstance(n, ast.FunctionDef)]
    if not functions:
        return ""
    outer = functions[-1]
    inner = next((n for n in outer.body if isinstance(n, ast.FunctionDef) and n.name == outer.name), None)
    if inner is None:
        return ""
    lines = code.splitlines()
    start = (inner.decorator_list[0].lineno if inner.decorator_list else inner.lineno) - 1
    nested = textwrap.dedent("\n".join(lines[start:inner.end_lineno]))
    before = lines[:(outer.decorator_list[0].lineno if outer.decorator_list else outer.lineno) - 1]
    return "\n".join([*before, nested, *lines[outer.end_lineno:]])


def _without_top_level_calls(code: str) -> str:
    """The code without top-level expression statements (`print(f(3))`, `main()`)."""
    try:
        module = ast.parse(code)
    except SyntaxError:
        return ""
    calls = [n for n in module.body if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call)]
    drop = {line for n in calls for line in range(n.lineno, (n.end_lineno or n.lineno) + 1)}
    return "\n".join(line for number, line in enumerate(code.splitlines(), 1) if number not in drop)


def reply_kind(reply: str, own: str) -> str:
    """How a reply was written, as far as extraction goes: without a fence, or fenced with a
    reading that does not parse (cut short, or spliced wrongly), or fenced and parsing. (A
    prefilled reply has no closing fence: generation stops there.)"""
    if "```" not in reply:
        return "unfenced"
    return "fenced_parses" if own.strip() and _parses(own) else "fenced_unparsable"


async def measure(records: Iterable[ProblemRecord], problems: dict[str, Problem]) -> dict:
    """The extraction-loss counts of every reply in `records`, by condition and in all."""
    cache: dict[tuple[str, str], bool] = {}

    async def passes(problem: Problem, code: str) -> bool:
        if (problem.task_id, code) not in cache:
            cache[(problem.task_id, code)] = (await hidden_verdict(problem, code)).passed
        return cache[(problem.task_id, code)]

    totals: dict[str, Counter[str]] = {}
    lost_examples: list[dict] = []
    for record in records:
        problem = problems[record["task_id"]]
        counts = totals.setdefault(record["condition"], Counter())
        for attempt in record["attempt_log"]:
            for reply in attempt.get("replies", []):
                own = module_candidate(reply)
                kind = reply_kind(reply, own)
                counts["replies"] += 1
                counts[f"replies_{kind}"] += 1
                if await passes(problem, own):
                    counts["own_passed"] += 1
                    continue
                rescued = [name for name, code in lenient_readings(reply).items()
                           if code != own and await passes(problem, code)]
                if rescued:
                    counts["lost"] += 1
                    counts[f"lost_{kind}"] += 1
                    for name in rescued:
                        counts[f"rescued_by_{name}"] += 1
                    lost_examples.append({"condition": record["condition"], "task_id": record["task_id"],
                                          "attempt": attempt["attempt"], "rescued_by": rescued, "reply": reply})
    every = sum(totals.values(), Counter())
    return {
        "all": dict(every),
        "by_condition": {name: dict(c) for name, c in totals.items()},
        "lost": lost_examples,
    }


def measure_file(records_path: Path, out_path: Path) -> dict:
    """Measure the records in a humaneval.jsonl and write the counts as JSON to `out_path`."""
    records = []
    for line in records_path.read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # the last line of a run still writing, or killed mid-write
    problems = {p.task_id: p for p in load_problems()}
    result = asyncio.run(measure(records, problems))
    out_path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


if __name__ == "__main__":
    records = Path(sys.argv[1])
    result = measure_file(records, records.parent / LOSS_FILE)
    print({k: v for k, v in sorted(result["all"].items())})
