"""Calls that earn their tokens, over real HTTP with the scripted server (replies prefilled):
a rewrite that is not valid Python is retried once, shown its parse error, as one sample of the
one function the repair most likely changes, and not again when the retry does not parse
either; rewrites that change nothing twice are not drawn again; line candidates go on. A
reflection that names an exception the failure does not show is dropped."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_openai import ADD_TASK, ADD_TESTS, BAD_ADD, GOOD_ADD, ScriptedServer, is_fix_actor, replies_in_order

from codeheal import Context, build_graph
from codeheal.context import resolve
from codeheal.forms.project.rewrites import NO_TRAIL, followed, retry_note, rewrites_to_draw
from codeheal.state import AppliedChange

HINT = "which is wrong; corrected:"
SETUP = "".join(f"    a{i} = {i}\n" for i in range(20))
ORIGINAL_BODY = f"{SETUP}    result = 0\n    for item in items:\n        result = item\n    return result\n"


@pytest.fixture
def sums(tmp_path: Path) -> Path:
    """A function of many lines the failing test runs (line slots for several attempts)."""
    (tmp_path / "sums.py").write_text(f"def total(items):\n{ORIGINAL_BODY}")
    (tmp_path / "test_sums.py").write_text("from sums import total\n\n\ndef test_total():\n"
                                           "    assert total([1, 2, 3]) == 6\n\n\ndef test_empty():\n"
                                           "    assert total([]) == 0\n")
    return tmp_path


class Script:
    """Rewrites from `rewrite(n)` (the n-th rewrite asked for); each line comes back changed,
    still wrong (a new change each time: the run is never stuck on repeats)."""

    def __init__(self, rewrite) -> None:
        self.rewrite = rewrite
        self.rewrites: list[list[dict]] = []

    def __call__(self, body: dict) -> str:
        messages = body["messages"]
        if not is_fix_actor(messages):
            return "total assigns each item instead of adding it."
        last = messages[-1]
        if last["role"] == "assistant" and HINT in last["content"]:
            return last["content"].rsplit("`", 2)[-2] + " + 0"
        self.rewrites.append(messages)
        return self.rewrite(len(self.rewrites))


def fix(server: ScriptedServer, project: Path, **settings) -> dict:
    context = resolve({"model": "scripted", "base_url": server.url, "max_attempts": 4, "prefill": "on",
                       "mutants": 0, "reflect": False, **settings}).context
    return build_graph().compile().invoke({"project": str(project), "test_command": "python -m pytest -q"},
                                          context=context)


def test_a_rewrite_that_does_not_parse_is_retried_once_with_its_error_then_no_more(sums: Path) -> None:
    script = Script(lambda n: f"    result = {n}\n        return result\n```")  # unexpected indent
    with ScriptedServer(script) as server:
        result = fix(server, sums)
    assert result["status"] == "failed" and result["attempts"] == 4
    assert len(script.rewrites) == 2, "the first rewrite, its one retry; none on the last attempt"
    retry = script.rewrites[1][-2]["content"]
    assert "Your previous reply was not Python that parses" in retry and "is not valid Python (line" in retry
    assert "Send only the function sums.py::total, whole" in retry
    assert "not Python that parses" not in script.rewrites[0][-2]["content"]


def test_rewrites_that_change_nothing_twice_are_not_drawn_again(sums: Path) -> None:
    script = Script(lambda n: ORIGINAL_BODY + "```")
    with ScriptedServer(script) as server:
        result = fix(server, sums)
    assert result["status"] == "failed" and result["attempts"] == 4
    assert len(script.rewrites) == 3, "one on the first repair, two on the next; none on the last"


def change(refused: str | None) -> AppliedChange:
    return AppliedChange(files={}, changed=[], refused=refused)


def test_the_trail_of_rewrites() -> None:
    unparsed = "the reply is not valid Python (line 2: unexpected indent); send complete function definitions"
    once = followed(NO_TRAIL, [change(unparsed), change(None)])
    assert once == {"unparsed": 1, "parse_error": unparsed, "unchanged": 0}
    assert rewrites_to_draw(once, 3, lines_left=True) == 1
    assert "unexpected indent" in (retry_note(once, "m.py::f") or "")
    parsed = followed(once, [change(None)])
    assert parsed["unparsed"] == 0 and retry_note(parsed, "m.py::f") is None
    twice = followed(once, [change(unparsed)])
    assert rewrites_to_draw(twice, 3, lines_left=True) == 0 and retry_note(twice, "m.py::f") is None
    assert rewrites_to_draw(twice, 3, lines_left=False) == 1, "with no line left, the rewrites go on"
    nothing = "the reply changes nothing: its definitions are the project's as they are"
    assert rewrites_to_draw(followed(NO_TRAIL, [change(nothing), change(nothing)]), 2, lines_left=True) == 0
    assert rewrites_to_draw(followed(NO_TRAIL, [change(nothing)]), 2, lines_left=True) == 2


@pytest.mark.parametrize(("reflection", "kept"), [
    ("add subtracts: the assert fails with an AssertionError; return a + b.", True),
    ("add raises a ValueError on negative numbers: check the sign first.", False),
])
def test_a_reflection_naming_an_exception_the_failure_does_not_show_is_dropped(reflection: str, kept: bool) -> None:
    with ScriptedServer(replies_in_order([f"```python\n{BAD_ADD}```", f"```python\n{GOOD_ADD}```"], reflection)) as server:
        result = build_graph().compile().invoke(
            {"task": ADD_TASK, "tests": ADD_TESTS}, context=Context(model="scripted", base_url=server.url, max_attempts=3))
    assert result["status"] == "passed"
    assert result["reflections"] == ([reflection] if kept else [])
