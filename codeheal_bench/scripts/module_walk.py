"""The walk: how often judging one candidate leaves a codeheal module and comes back to it.

A `codeheal fix` run heals the shop fixture (tests/project/fixtures/shop) with a scripted model
that always answers the right fix, the mutation screen off; a `solve` run writes a module with
the same kind of model. While a candidate is judged (the form's `test_steps`, every call made
under its frame: the edit applied, scope and scan, lint, the job built, the feedback read; the
sandbox run itself is done by the step driver and is outside it), the first call of each
codeheal function is recorded by its module (a function called again, in a loop or from
another place, is not a new stop: the walk is the code a reader follows, in the order it first
runs); consecutive functions of one module are one stop. A *return* is a stop in a module the
walk had already left: stops minus distinct modules.

    PYTHONPATH=. .venv/bin/python codeheal_bench/scripts/module_walk.py [--json FILE] [--show]
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType

from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from codeheal import Context, build_graph

ROOT = Path(__file__).resolve().parents[2]
SHOP = ROOT / "tests" / "project" / "fixtures" / "shop"
FIXED = '''```python
# shop/pricing.py
def bulk_discount(quantity: int) -> int:
    """Percent off for buying `quantity` of one item."""
    for threshold, percent in DISCOUNT_TIERS:
        if quantity >= threshold:
            return percent
    return 0
```
'''
SOLVED = "```python\ndef add(a, b):\n    return a + b\n```\n"


class Walks:
    """Per judged candidate (one `test_steps` frame), the codeheal modules its calls enter."""

    def __init__(self) -> None:
        self.walks: dict[int, list[str]] = {}
        self.seen: dict[int, set] = {}
        self.candidates: dict[int, object] = {}
        self.lock = threading.Lock()

    def profile(self, frame: FrameType, event: str, arg: object) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("codeheal"):
            return
        owner = frame
        while owner is not None and not (owner.f_code.co_name == "test_steps" and owner.f_globals.get("__name__", "").startswith("codeheal.forms")):
            owner = owner.f_back
        if owner is None:
            return
        with self.lock:
            walk = self.walks.setdefault(id(owner), [])
            seen = self.seen.setdefault(id(owner), set())
            if frame.f_code in seen:
                return
            seen.add(frame.f_code)
            if owner is frame:
                job = frame.f_locals.get("job") or {}
                self.candidates[id(owner)] = job.get("candidate") if isinstance(job, dict) else None
            if not walk or walk[-1] != module:
                walk.append(module)


def summary(walk: list[str]) -> dict:
    return {"stops": len(walk), "modules": len(set(walk)), "returns": len(walk) - len(set(walk)), "path": walk}


def traced(run) -> list[dict]:
    walks = Walks()
    threading.setprofile(walks.profile)
    sys.setprofile(walks.profile)
    try:
        run()
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
    return [{"candidate": str(walks.candidates.get(key))[:40], **summary(walk)} for key, walk in walks.walks.items()]


def project_context() -> Context:
    try:
        from codeheal import resolve
    except ImportError:  # the settings of aea9768: a flat Context
        return Context(max_attempts=2, mutants=0)
    return resolve({"max_attempts": 2, "mutants": 0}).context


def fix_run() -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp) / "shop"
        shutil.copytree(SHOP, project)
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        model = GenericFakeChatModel(messages=itertools.repeat(AIMessage(FIXED)))
        graph = build_graph(llm=model).compile()
        result = {}
        walks = traced(lambda: result.update(graph.invoke(
            {"project": str(project), "test_command": "python -m pytest -q"}, context=project_context())))
        assert result["status"] == "passed", result["status"]
        return walks


def solve_run() -> list[dict]:
    model = GenericFakeChatModel(messages=itertools.repeat(AIMessage(SOLVED)))
    graph = build_graph(llm=model).compile()
    result = {}
    walks = traced(lambda: result.update(graph.invoke(
        {"task": "Write add(a, b).", "tests": "assert add(2, 3) == 5\nassert add(0, 0) == 0"},
        context=Context(max_attempts=1))))
    assert result["status"] == "passed", result["status"]
    return walks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", metavar="FILE", help="write the walks to FILE")
    parser.add_argument("--show", action="store_true", help="print each walk's path")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    result = {"commit": commit, "project": fix_run(), "module": solve_run()}
    for form in ("project", "module"):
        for walk in result[form]:
            print(f"{form:8} candidate {walk['candidate']!r:44} stops {walk['stops']:3}  modules {walk['modules']:3}  returns {walk['returns']:3}")
            if args.show:
                print("    " + " -> ".join(m.removeprefix("codeheal.") for m in walk["path"]))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
