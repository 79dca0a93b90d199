"""Token counts on the embedded model: llama.cpp's /tokenize (what codeheal's counter asks)
against the estimate (a token per 3 bytes), on three texts of this repository, and a prompt's
count against the prompt tokens the server bills for it.

Writes benchmarks/results/tokenize_check.json. Usage (starts the embedded model):
    python benchmarks/token_counts.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from langchain_core.messages import HumanMessage, SystemMessage

from codeheal import Context
from codeheal.llm.factory import chat_model, token_counter
from codeheal.tokens import ESTIMATE

REPO = Path(__file__).resolve().parent.parent
TEXTS = ("tests/project/fixtures/shop/shop/pricing.py", "codeheal/forms/project/prompts.py", "README.md")


def main() -> None:
    context = Context(model="local-0.5b")
    model = chat_model(context, 0.0, 8)
    counter = token_counter(model)
    rows: list[dict] = []
    for name in TEXTS:
        text = (REPO / name).read_text(encoding="utf-8")[:6000]
        exact = counter.tokens(text)
        rows.append({"text": name, "bytes": len(text.encode()), "tokenize": exact, "estimate": ESTIMATE.tokens(text),
                     "bytes_per_token": round(len(text.encode()) / exact, 2)})
    code = (REPO / TEXTS[0]).read_text(encoding="utf-8")
    messages = [SystemMessage("You are a careful Python programmer."), HumanMessage("Fix this:\n" + code)]
    billed = model.invoke(messages).usage_metadata["input_tokens"]
    rows.append({"prompt": "system+user", "counted": counter.prompt_tokens(messages),
                 "estimated": ESTIMATE.prompt_tokens(messages), "server_prompt_tokens": billed})
    out = REPO / "benchmarks" / "results" / "tokenize_check.json"
    out.write_text(json.dumps({"when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "model": context.model,
                               "counter": type(counter).__name__ + ("(/tokenize)" if counter.llama_cpp_url else "(estimate)"),
                               "rows": rows}, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
