"""Line-level candidates in a `codeheal fix` run, over real HTTP with the scripted server: the
project as it is runs with coverage, its suspicious lines are listed in the repair prompt,
each top line gets replies prefilled up to it (stopping at its end), the candidates are
deduplicated and tested in parallel with the rewrite, and the smallest passing change wins."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, is_fix_actor

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from codeheal import build_graph
from codeheal.context import resolve
from codeheal.llm.factory import MAX_TOKENS
from codeheal.rules import LINE_SAMPLES, LINE_SLOTS
from codeheal.tokens import ESTIMATE

SHOP = Path(__file__).with_name("fixtures") / "shop"
BUGGY = "if quantity > threshold:"
HINT = "which is wrong; corrected:"
REWRITE = (  # passes too, but rewrites the whole loop
    "```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n"
    '    """Percent off for buying `quantity` of one item."""\n'
    "    best = 0\n    for threshold, percent in DISCOUNT_TIERS:\n"
    "        if quantity >= threshold and percent > best:\n            best = percent\n    return best\n```\n"
)
WRONG_REWRITE = REWRITE.replace(">= threshold", "> threshold")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    return project


class LineScript:
    """Rewrites as given; a line reply for the buggy line fixes it (the same fix from both
    samples), every other line comes back as it was (a change that changes nothing)."""

    def __init__(self, rewrite: str) -> None:
        self.rewrite = rewrite
        self.lines: list[str] = []

    def __call__(self, body: dict) -> str:
        messages = body["messages"]
        if not is_fix_actor(messages):
            return "bulk_discount compares with > where a tier starts at its threshold."
        last = messages[-1]
        if last["role"] != "assistant" or HINT not in last["content"]:
            return self.rewrite
        original = last["content"].rsplit("`", 2)[-2]
        self.lines.append(original)
        return "if quantity >= threshold:" if original == BUGGY else original


def message(sent: dict) -> BaseMessage:
    kind = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}[sent["role"]]
    return kind(sent["content"])


def fix(server: ScriptedServer, project: Path, target: str | None = None, **settings):
    context = resolve({"model": "scripted", "base_url": server.url, "max_attempts": 3, "prefill": "on", "mutants": 0,
                       **settings}).context
    request = {"project": str(project), "test_command": "python -m pytest -q", "target": target}
    return build_graph().compile().invoke(request, context=context)


def test_the_one_line_fix_wins_over_a_passing_rewrite(shop: Path) -> None:
    script = LineScript(REWRITE)
    with ScriptedServer(script) as server:
        result = fix(server, shop, target="shop/pricing.py::bulk_discount")
    assert result["status"] == "passed" and result["attempts"] == 2
    changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["-        if quantity > threshold:", "+        if quantity >= threshold:"]
    repair = result["history"][1]
    # the rewrite, the fixed line (its two samples are one change), and the lines sent back
    # unchanged (one refusal, tested once)
    assert repair["candidates_tested"] == 3
    actor = [b for b in server.requests if is_fix_actor(b["messages"])]
    lines = [b for b in actor if b["messages"][-1]["role"] == "assistant" and HINT in b["messages"][-1]["content"]]
    assert len(lines) == LINE_SAMPLES * len(set(script.lines)) and len(set(script.lines)) <= LINE_SLOTS
    assert BUGGY in script.lines
    assert all(b["stop"] == ["\n"] for b in lines)
    assert [b["temperature"] for b in lines[:LINE_SAMPLES]] == [0.0] + [0.7] * (LINE_SAMPLES - 1)
    prompt = actor[0]["messages"][1]["content"]
    listed = prompt.split("Most suspicious lines (run by the failing tests more than by the passing ones):\n")[1]
    assert "- shop/pricing.py line 10: if quantity > threshold:" in listed.split("\n\n")[0]


def test_a_line_fix_passes_where_the_rewrite_fails(shop: Path) -> None:
    with ScriptedServer(LineScript(WRONG_REWRITE)) as server:
        result = fix(server, shop, target="shop/pricing.py::bulk_discount")
    assert result["status"] == "passed" and result["attempts"] == 2
    assert "+        if quantity >= threshold:\n" in result["diff"] and "best" not in result["diff"]


def test_without_prefill_there_are_no_line_candidates(shop: Path) -> None:
    script = LineScript(WRONG_REWRITE)
    with ScriptedServer(script) as server:
        result = fix(server, shop, target="shop/pricing.py::bulk_discount", prefill="off")
    assert result["status"] != "passed" and script.lines == []


def test_every_line_candidate_s_prompt_fits_the_window_with_its_prefill(tmp_path: Path) -> None:
    # a long function: the prefill of a line near its end (the function up to the line) alone
    # is longer than a rewrite's reply; its prompt is fitted again with room for it
    body = "".join(f"    step_{i} = {i}\n" for i in range(250))
    (tmp_path / "sums.py").write_text(
        f"def total(items):\n    result = 0\n{body}    for item in items:\n        result = item\n    return result\n")
    data = ", ".join(str(n) for n in range(900))  # a long test: the repair prompt fills what the rewrite leaves
    (tmp_path / "test_sums.py").write_text(f"from sums import total\n\n\ndef test_total():\n    data = [{data}]\n"
                                           "    assert total(data) == sum(data)\n\n\n"
                                           "def test_empty():\n    assert total([]) == 0\n")

    def script(body: dict) -> str:
        last = body["messages"][-1]
        return last["content"].rsplit("`", 2)[-2] if last["role"] == "assistant" and HINT in last["content"] else "no code"

    window = 3200
    with ScriptedServer(script) as server:
        result = fix(server, tmp_path, max_attempts=2, context_size=window)
    assert result["status"] == "failed"
    lines = [b for b in server.requests if b["messages"][-1]["role"] == "assistant" and HINT in b["messages"][-1]["content"]]
    assert lines and any(ESTIMATE.tokens(b["messages"][-1]["content"]) > MAX_TOKENS for b in lines)
    for request in server.requests:
        prompt = ESTIMATE.prompt_tokens([message(m) for m in request["messages"]])
        assert prompt + (request.get("max_completion_tokens") or MAX_TOKENS) <= window, prompt
