#!/usr/bin/env python
"""Usage: benchmarks/corpus_screen.py OUT.jsonl LIMIT REGRESSION [SUITE [NAME ...]]

REGRESSION: importers, suite or none; SUITE: tuning (the corpus's tuning half, the default) or
seeded (the seeded bugs in toolz and boltons); NAME: only these cases. The cases with a model
that writes nothing: what the mutation screen and the regression check heal, scored as
corpus_run scores (seeded_run.heal_one: the whole suite on the result). Never the report half."""
import json, sys, time
from pathlib import Path
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from codeheal import build_graph
from codeheal.context import resolve
from codeheal.errors import CodehealError
from codeheal_bench import corpus, seeded
from codeheal_bench.seeded_run import heal_one, pristine_files

out = Path(sys.argv[1]); limit = int(sys.argv[2]); regression = sys.argv[3]
suite = sys.argv[4] if len(sys.argv) > 4 else "tuning"
names = set(sys.argv[5:])
libraries = seeded.LIBRARIES if suite == "seeded" else corpus.LIBRARIES
cases = list(seeded.BUGS) if suite == "seeded" else corpus.load_cases(half="tuning")
cases = [case for case in cases if not names or case.name in names][:limit]
pristine = pristine_files(cases, libraries, None)
ctx = resolve({"max_attempts": 2, "reflect": False, "regression": regression, "sandbox": "local"}).context
done = {json.loads(l)["program"] for l in out.open()} if out.exists() else set()
for case in cases:
    if case.name in done:
        continue
    graph = build_graph(llm=GenericFakeChatModel(messages=iter([AIMessage("no code here")] * 40))).compile()
    t = time.time()
    try:
        r = heal_one(graph, case, libraries[case.library], pristine[case.library], ctx)
        r.pop("context", None); r["error"] = None
    except CodehealError as exc:
        r = {"program": case.name, "healed": False, "suite_passed": False, "error": f"{type(exc).__name__}: {exc}", "seconds": round(time.time() - t, 1)}
    with out.open("a") as f:
        f.write(json.dumps(r) + "\n")
    print(case.name, r["healed"], r["suite_passed"], r.get("error"), r["seconds"], flush=True)
