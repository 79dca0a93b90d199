"""The model ladder (Context.then_models): when a run is stuck on one model, or that model has
written its share of the attempts, the next model continues with the run's memory, in the same
thread; each attempt records the model that wrote it, the progress shows the switch, and the
result says which model healed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, fenced
from scripted_openai import ADD_TASK, ScriptedServer, is_actor, is_fix_actor

from codeheal import Context, build_graph
from codeheal.cli import _parser, _typed_settings, main
from codeheal.config_file import load_config
from codeheal.context import resolve
from codeheal.errors import ConfigError
from codeheal.rules import model_context, shares, turn
from codeheal.state import State

SHOWN = "Your previous attempt failed these checks"
BIG_LESSON = "add subtracts: return a + b."


def repeats_a_wrong_answer(body: dict) -> str:
    """The first model: the same wrong code whatever it is shown; a vague reflection."""
    return fenced(BAD_ADD) if is_actor(body["messages"]) else "Check the code."


def fixes_what_it_is_shown(body: dict) -> str:
    """The second model: right code when shown the failure, else the same wrong code."""
    if not is_actor(body["messages"]):
        return BIG_LESSON
    prompt = "\n".join(str(m.get("content")) for m in body["messages"])
    return fenced(GOOD_ADD if SHOWN in prompt else BAD_ADD)


def actor_prompts(server: ScriptedServer) -> list[str]:
    return ["\n".join(str(m.get("content")) for m in call) for call in server.actor_calls()]


@pytest.mark.default_policy
def test_the_next_model_takes_over_with_the_run_s_memory_and_the_result_names_it(tmp_path: Path, capsys) -> None:
    tests = tmp_path / "tests.py"
    tests.write_text(ADD_TESTS)
    with ScriptedServer(repeats_a_wrong_answer) as small, ScriptedServer(fixes_what_it_is_shown) as big:
        code = main(["solve", ADD_TASK, "--tests", str(tests), "--model", "small", "--base-url", small.url,
                     "--then-model", f"big@{big.url}", "--max-attempts", "4", "--json",
                     "--checkpointer", str(tmp_path / "c.sqlite")])
    out, err = capsys.readouterr()
    assert code == 0, err
    result = json.loads(out)
    # small writes its share (2 of 4), then big, shown small's failure
    assert [a["model"] for a in result["history"]] == ["small", "small", "big"]
    assert result["history"][-1]["passed"] and result["totals"]["healed_by_model"] == "big"
    # small's second reply repeats its first, failed, code: drawn once more (it repeats again)
    assert len(small.actor_calls()) == 3 and len(big.actor_calls()) == 1
    handover = actor_prompts(big)[0]
    assert SHOWN in handover and "assert add(2, 3) == 5" in handover
    said = " ".join(err.split())  # the console wraps long lines
    assert "attempt 3: switching to big (small wrote its share of the attempts)" in said
    assert "model small, then big" in said and said.endswith("healed by the model big")


def test_a_model_stuck_hands_over_early_and_the_next_one_writes_the_lesson(tmp_path: Path) -> None:
    events = []
    with ScriptedServer(repeats_a_wrong_answer) as small, ScriptedServer(fixes_what_it_is_shown) as big:
        graph = build_graph().compile()
        context = Context(model="small", base_url=small.url, then_models=(f"big@{big.url}",), max_attempts=8,
                          policy="self_heal")
        for mode, chunk in graph.stream({"task": ADD_TASK, "tests": ADD_TESTS}, context=context,
                                        stream_mode=["custom", "values"]):
            if mode == "custom":
                events.append(chunk)
            else:
                result = chunk
    # self_heal: small fails, is shown it and fails alike, starts fresh and fails alike again:
    # stuck after 3 of its 4 attempts; big reflects on the failure and heals it.
    assert [a["model"] for a in result["history"]] == ["small", "small", "small", "big"]
    assert result["status"] == "passed"
    switched = [e for e in events if e["kind"] == "model_switched"]
    assert switched == [{"kind": "model_switched", "attempt": 4, "model": "big", "previous": "small",
                         "after": "stuck"}]
    assert BIG_LESSON in result["reflections"]
    assert BIG_LESSON in actor_prompts(big)[0] and SHOWN in actor_prompts(big)[0]


def test_the_last_model_stuck_ends_the_run_stuck() -> None:
    with ScriptedServer(repeats_a_wrong_answer) as small, ScriptedServer(repeats_a_wrong_answer) as big:
        context = Context(model="small", base_url=small.url, then_models=(f"big@{big.url}",), max_attempts=8,
                          policy="self_heal")
        result = build_graph().compile().invoke({"task": ADD_TASK, "tests": ADD_TESTS}, context=context)
    assert result["status"] == "stuck"
    assert [a["model"] for a in result["history"]] == ["small"] * 3 + ["big"] * 3


def test_shares_give_the_earlier_models_the_remainder() -> None:
    assert shares(Context(max_attempts=5, then_models=("b", "c"))) == (2, 2, 1)
    assert shares(Context(max_attempts=3)) == (3,)


def test_the_turn_follows_the_history_and_a_ladder_model_keeps_its_endpoint() -> None:
    context = Context(model="a", base_url="http://one/v1", then_models=("b@http://two/v1", "c"), max_attempts=6)
    rules = context.policy

    def attempt(n: int, model: str | None, summary: str = "failed") -> dict:
        return {"attempt": n, "code": "", "summary": summary, "passed_count": 0, "total": 1, "reflection": None,
                "tokens": 0, "seconds": 0.0, **({"model": model} if model else {})}

    given = [attempt(1, None)]  # the given code: no model wrote it, no model's share
    assert turn(State(history=given), context, rules).model == "a"
    assert turn(State(history=[*given, attempt(2, "a")]), context, rules).handover is None
    switch = turn(State(history=[*given, attempt(2, "a"), attempt(3, "a")]), context, rules)
    assert (switch.model, switch.handover, switch.previous) == ("b", "turn used", "a")
    assert model_context(context, "b").base_url == "http://two/v1" and model_context(context, "b").model == "b"
    assert model_context(context, "c").base_url == "http://one/v1"
    assert model_context(context, "a") is context


def test_the_ladder_is_a_repeated_flag_a_config_key_and_an_environment_variable(tmp_path: Path, monkeypatch) -> None:
    args = _parser().parse_args(["solve", "t", "--tests", "x.py", "--then-model", "b", "--then-model", "c@http://h/v1"])
    assert _typed_settings(args) == {"then_models": ["b", "c@http://h/v1"]}
    assert resolve(_typed_settings(args)).context.then_models == ("b", "c@http://h/v1")
    (tmp_path / "pyproject.toml").write_text('[tool.codeheal]\nthen-model = ["gpt-4o-mini"]\n')
    assert load_config(tmp_path, command="fix").settings == {"then_models": ["gpt-4o-mini"]}
    monkeypatch.setenv("CODEHEAL_THEN_MODELS", "b, c")
    assert Context().then_models == ("b", "c")


@pytest.mark.parametrize(("settings", "message"), [
    ({"then_models": ["b", "c"], "max_attempts": 2}, "contradicts max_attempts=2"),
    ({"then_models": ["b", "b"]}, "names b twice"),
    ({"model": "a", "then_models": ["a"]}, "names a twice"),
    ({"then_models": ["b@ftp://x"]}, "NAME@URL"),
])
def test_a_ladder_that_cannot_run_is_refused(settings: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        resolve(settings)


SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"
REPAIR = ('```python\n# shop/pricing.py\ndef bulk_discount(quantity: int) -> int:\n'
          '    """Percent off for buying `quantity` of one item."""\n'
          "    for threshold, percent in DISCOUNT_TIERS:\n"
          "        if {condition}:\n            return percent\n    return 0\n```\n")


def repairs(code: str, lesson: str):
    return lambda body: code if is_fix_actor(body["messages"]) else lesson


def test_in_the_project_form_a_model_that_finds_nothing_new_hands_over(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(SHOP, tmp_path / "shop")
    wrong, fixed = REPAIR.format(condition="quantity > threshold - 0"), REPAIR.format(condition="quantity >= threshold")
    with (ScriptedServer(repairs(wrong, "Small's lesson.")) as small,
          ScriptedServer(repairs(fixed, "Big's lesson.")) as big):
        context = resolve({"model": "small", "base_url": small.url, "then_models": [f"big@{big.url}"],
                           "max_attempts": 6, "mutants": 0}).context
        result = build_graph().compile().invoke(
            {"project": str(tmp_path / "shop"), "test_command": "python -m pytest -q"}, context=context)
    # attempt 1 tests the project as it is; small's second repair finds nothing new: stuck
    assert [a.get("model") for a in result["history"]] == [None, "small", "small", "big"]
    assert result["status"] == "passed" and result["history"][2]["repeat"]
    handover = "\n".join(str(m["content"]) for m in big.requests[-1]["messages"])
    assert "Small's lesson." in handover and "Big's lesson." in handover
