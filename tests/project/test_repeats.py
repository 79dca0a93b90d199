"""Never spend an attempt on a repeat (project form), over real HTTP with the scripted server:
later repairs sample at the retry temperature, several at once; a reply that makes the same
change as another, or a change tried before (refused or failed), is not tested again; the
repair prompt says what was refused and why; nothing new is the stuck rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from scripted_openai import ScriptedServer, is_fix_actor

from codeheal import build_graph
from codeheal.context import resolve

SHOP = Path(__file__).with_name("fixtures") / "shop"
TEST = "python -m pytest -q"
LESSON = "bulk_discount compares with > but a tier starts at its threshold: use >=."


def reply(condition: str, *, blank: str = "") -> str:
    return (
        "```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n"
        f'    """Percent off for buying `quantity` of one item."""\n{blank}'
        "    for threshold, percent in DISCOUNT_TIERS:\n"
        f"        if {condition}:\n            return percent\n    return 0\n```\n"
    )


UNCHANGED = reply("quantity > threshold")
WRONG = reply("quantity > threshold - 0")
WRONG_REFORMATTED = reply("quantity > threshold - 0", blank="\n")  # the same change, a blank line more
FIXED = reply("quantity >= threshold")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    return project


def serve(*rounds: list[str]):
    """Actor replies round by round (one round per attempt, its samples in order)."""
    queue = [r for batch in rounds for r in batch]

    def script(body: dict) -> str:
        if not is_fix_actor(body["messages"]):
            return LESSON
        return queue.pop(0) if len(queue) > 1 else queue[0]

    return ScriptedServer(script)


def fix(server: ScriptedServer, project: Path, **settings):
    context = resolve({"model": "scripted", "base_url": server.url, "max_attempts": 4, "retry_samples": 3,
                       "mutants": 0, **settings}).context
    return build_graph().compile().invoke({"project": str(project), "test_command": TEST}, context=context)


def actor_requests(server: ScriptedServer) -> list[dict]:
    return [body for body in server.requests if is_fix_actor(body["messages"])]


def test_repeats_are_dropped_before_testing_and_the_prompt_names_what_was_refused(shop: Path) -> None:
    with serve([UNCHANGED], [UNCHANGED, WRONG, WRONG_REFORMATTED], [WRONG, UNCHANGED, FIXED]) as server:
        result = fix(server, shop)
    assert result["status"] == "passed" and result["attempts"] == 4
    requests = actor_requests(server)
    assert [body["temperature"] for body in requests] == [0.0] + [0.7] * 6, "later repairs sample at the retry temperature"
    _, nothing, wrong, healed = result["history"]
    assert "the reply changes nothing" in nothing["summary"] and nothing["candidates_tested"] == 1
    assert wrong["candidates_tested"] == 1, "the repeated refusal and the same change reformatted were not tested"
    assert healed["candidates_tested"] == 1, "the change that failed and the refused reply were not tried again"
    assert not any(a.get("repeat") for a in result["history"])
    last_prompt = requests[-1]["messages"][-1]["content"]
    refused = last_prompt.split("Already tried and refused or failed, never send these again:\n")[1]
    assert "- failed 0/0 passed; the reply was not applied: the reply changes nothing" in refused
    assert f"- {wrong['summary']}" in refused


def test_an_attempt_with_nothing_new_is_stuck(shop: Path) -> None:
    with serve([WRONG], [WRONG, WRONG_REFORMATTED, WRONG]) as server:
        result = fix(server, shop)
    assert result["status"] == "stuck" and result["attempts"] == 3
    assert result["history"][2]["repeat"] and not result["history"][1].get("repeat")
    assert len(actor_requests(server)) == 4, "no attempt is written after the run is stuck"
