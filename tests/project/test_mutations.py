"""The mutation screen: one-line mutations of the suspicious lines, written without a model and
tested like repairs before the first model call; one that passes heals the run with no token
spent, and the screen's attempt does not count against max_attempts."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from doubles import CountingSandbox, node_updates
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from codeheal import Context, build_graph, rules
from codeheal.context import ProjectSettings, resolve
from codeheal.errors import ConfigError
from codeheal.nodes.candidate_test import FIRST_BATCH
from codeheal.forms.project.mutations import (
    ARGUMENTS,
    BOUNDARY,
    DEFAULT,
    DEGENERATE,
    DROPPED,
    INGREDIENT,
    TWIN,
    VARIABLE,
    function_ingredients,
    line_mutants,
    local_names,
)

SHOP = Path(__file__).with_name("fixtures") / "shop"
TEST = "python -m pytest -q"


def lines(line: str, names: set[str] = frozenset(), ingredients: set[str] = frozenset()) -> list[str]:
    return [m.line for m in line_mutants(line, names, ingredients)]


def test_a_comparison_boundary_is_tried_first_and_the_comment_stays() -> None:
    mutants = line_mutants("if quantity > threshold:  # tiers start at their threshold", {"quantity"})
    assert mutants[0].rank == BOUNDARY
    assert mutants[0].line == "if quantity >= threshold:  # tiers start at their threshold"
    assert all(m.line.endswith(":  # tiers start at their threshold") for m in mutants)
    assert [m.rank for m in mutants] == sorted(m.rank for m in mutants)


def test_every_mutation_parses_differs_and_keeps_its_keyword() -> None:
    for line in ("elif x > arr[mid]:", "while lo <= hi:", "return gcd(a % b, b)", "total += arr[i - 1] * 2",
                 "for i in range(1, len(arr) - 1):", "if not stack and x:", "return (a + b) - c"):
        mutants = lines(line, {"x", "arr", "mid", "lo", "hi", "a", "b", "i", "total", "stack"})
        assert mutants and line not in mutants and len(set(mutants)) == len(mutants)
        for mutant in mutants:
            code = mutant.replace("elif", "if", 1)
            ast.parse(code + " pass" if code.endswith(":") else code)
            assert mutant.split()[0] == line.split()[0]


def test_the_classic_operators() -> None:
    assert "elif x >= arr[mid]:" in lines("elif x > arr[mid]:")
    assert "return gcd(b, a % b)" in lines("return gcd(a % b, b)")  # swapped arguments
    assert "for i in range(1, len(arr)):" in lines("for i in range(1, len(arr) - 1):")  # `- 1` dropped
    assert "dp[i, j] = dp[i - 1, j - 1] + 1" in lines("dp[i, j] = dp[i - 1, j] + 1")  # a key one off
    assert "d[i, k] + d[k, j]" in lines("d[i, k] + d[j, k]")  # swapped keys
    assert "if stack or x:" in lines("if stack and x:")
    assert "if stack and x:" in lines("if not stack and x:")
    assert "return max(a)" in lines("return min(a)")
    assert "total -= step" in lines("total += step")


def test_twin_methods_slice_sides_swapped_operands_and_what_a_line_may_have_dropped() -> None:
    ranks = {m.line: m.rank for m in line_mutants("head, _, tail = text.split(sep, 1)", {"text", "sep"})}
    assert ranks["head, _, tail = text.rsplit(sep, 1)"] == TWIN
    assert {"i = s.rfind(sep)", "i = s.find(sep)"} & set(lines("i = s.find(sep)")) == {"i = s.rfind(sep)"}
    assert "out.extend(items)" in lines("out.append(items)")
    assert "if any(flags):" in lines("if all(flags):") and "return max(a)" in lines("return min(a)")
    assert "return seq[n:]" in lines("return seq[:n]") and "return seq[:n]" in lines("return seq[n:]")
    assert "name = last + first" in lines("name = first + last")  # strings do not commute
    assert "n = 1 + 2" not in " ".join(lines("n = 2 + 1"))  # numbers do: no swap
    dropped = {m.line for m in line_mutants("inner[k] = func(d[k])", {"k", "d"}) if m.rank == DROPPED}
    assert dropped == {"inner[k] = d[k]"}
    assert ("v = word", DROPPED) in {(m.line, m.rank) for m in line_mutants("v = word.strip()", {"word"})}
    assert ("y = x + 1", DROPPED) in {(m.line, m.rank) for m in line_mutants("y = -x + 1", {"x"})}


def test_degenerate_mutants_rank_last_and_a_constant_made_minus_zero_goes() -> None:
    # a sentinel return changed, a constant condition flipped: last; `-1` -> `-0`: not a mutant
    assert lines("return -1  # not a number") == ["return -2  # not a number"]
    assert {m.rank for m in line_mutants("return -1", set())} == {DEGENERATE}
    assert {m.rank for m in line_mutants("while True:", set())} == {DEGENERATE}
    assert not any("-0" in line for line in lines("x = y[-1] - 1", {"y"}))
    ranks = [m.rank for m in line_mutants("if count > limit:  # or return True", {"count", "limit"})]
    assert DEGENERATE not in ranks  # a comparison is not degenerate


def test_a_default_of_a_def_line_changes_as_a_real_bug_would() -> None:
    mutants = line_mutants('def page(items, size=0, *, strict=True, side="left", skip=-1, key=None) -> list:',
                           {"items", "size", "strict", "side", "skip", "key"})
    assert {m.rank for m in mutants} == {DEFAULT}
    assert [m.line.removeprefix("def page(items, ").removesuffix(") -> list:") for m in mutants] == [
        'size=1, *, strict=True, side="left", skip=-1, key=None',  # 0 <-> 1
        'size=-1, *, strict=True, side="left", skip=-1, key=None',
        'size=0, *, strict=False, side="left", skip=-1, key=None',
        'size=0, *, strict=True, side="right", skip=-1, key=None',  # a twin, its quotes kept
        'size=0, *, strict=True, side="left", skip=0, key=None',
        'size=0, *, strict=True, side="left", skip=-2, key=None']  # None and the annotation left alone
    assert lines("def pad(text, fill='x', width=2.5):") == []  # no twin, no whole number


def test_a_variable_is_replaced_by_a_local_never_where_it_names_what_is_called_or_indexed() -> None:
    mutants = line_mutants("for i, count in enumerate(arr):", {"arr", "counts", "i", "count"})
    assert [m.line for m in mutants if m.rank == VARIABLE] == [
        "for i, count in enumerate(count):", "for i, count in enumerate(counts):", "for i, count in enumerate(i):"]
    assert not any(m.line.startswith(("arr", "for i, count in counts(")) for m in mutants)
    assert not any("dp" not in m.line.split("=")[0] for m in line_mutants("dp[i] = 1", {"dp", "i", "j"}))


def test_a_variable_becomes_an_expression_of_it_from_its_function() -> None:
    source = (
        "def lcs(a, b):\n    if a[0] == b[0]:\n        return a[0] + lcs(a[1:], b)\n"
        "    return max(lcs(a, b[1:]), lcs(a[1:], b), key=len)\n"
    )
    function = ast.parse(source).body[0]
    assert local_names(function) == {"a", "b"}
    ingredients = function_ingredients(function, source)
    assert {"a[1:]", "b[1:]", "lcs(a[1:], b)"} <= ingredients
    mutants = line_mutants("return a[0] + lcs(a[1:], b)", {"a", "b"}, ingredients)
    assert any(m.line == "return a[0] + lcs(a[1:], b[1:])" and m.rank == INGREDIENT for m in mutants)


def test_a_line_that_does_not_parse_alone_has_none() -> None:
    assert lines("foo(a,", {"a"}) == []
    assert lines("else:") == []


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    return project


def no_model() -> GenericFakeChatModel:
    """A chat model with no reply: any model call fails the test."""
    return GenericFakeChatModel(messages=iter([]))


def test_the_screen_heals_a_one_token_defect_without_a_model_call(shop: Path) -> None:
    events = []
    graph = build_graph(llm=no_model()).compile()
    request = {"project": str(shop), "test_command": TEST}
    for mode, chunk in graph.stream(request, context=Context(max_attempts=2), stream_mode=["custom", "values"]):
        if mode == "custom":
            events.append(chunk)
        else:
            result = chunk
    assert result["status"] == "passed" and result["attempts"] == 2
    screen = result["history"][1]
    assert screen["tokens"] == 0 and screen["candidates_tested"] > 1
    changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["-        if quantity > threshold:", "+        if quantity >= threshold:"]
    written = [e for e in events if e["kind"] == "candidates_written"]
    assert written == [{"kind": "candidates_written", "attempt": 2, "seconds": 0.0, "prompt_tokens": 0,
                        "completion_tokens": 0, "mutants": Context().project.mutants,
                        "screen": "one-line mutations of the suspicious lines", "screen_seconds": rules.SCREEN_BUDGET_MIN_S}]
    assert screen["candidates_tested"] == FIRST_BATCH  # the likeliest mutant passed: the rest untested
    started = [e for e in events if e["kind"] == "attempt_started"]
    assert [{k: v for k, v in e.items() if k != "seconds_left"} for e in started] == [
        {"kind": "attempt_started", "attempt": 2, "max_attempts": 3}]
    assert 0 < started[0]["seconds_left"] <= Context().deadline_s
    tested = [e for e in events if e["kind"] == "tests_result"]
    assert "candidates" not in tested[0] and tested[1]["candidates"] == screen["candidates_tested"]


def test_a_screen_that_finds_nothing_leaves_the_model_its_attempts(tmp_path: Path) -> None:
    # no one-token change heals `result = item` (it wants `+=`): the model still gets its repairs
    (tmp_path / "sums.py").write_text(
        "def total(items):\n    result = 0\n    for item in items:\n        result = item\n    return result\n")
    (tmp_path / "test_sums.py").write_text(
        "from sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n")
    replies = iter([AIMessage("no code here")] * 4)
    graph = build_graph(llm=GenericFakeChatModel(messages=replies)).compile()
    result = graph.invoke({"project": str(tmp_path), "test_command": TEST},
                          context=resolve({"max_attempts": 2, "mutants": 5, "reflect": False}).context)
    assert result["status"] == "failed" and result["attempts"] == 3
    screen, repair = result["history"][1:]
    assert screen["candidates_tested"] == 5 and screen["tokens"] == 0 and not screen["passed"]
    assert "no ```python block in the reply" in repair["summary"] and len(list(replies)) == 3  # the model wrote it


def test_no_screen_when_mutants_is_0_and_a_bad_count_is_refused(shop: Path) -> None:
    replies = iter([AIMessage("no code here")] * 4)
    graph = build_graph(llm=GenericFakeChatModel(messages=replies)).compile()
    result = graph.invoke({"project": str(shop), "test_command": TEST},
                          context=resolve({"max_attempts": 2, "mutants": 0, "reflect": False}).context)
    assert result["attempts"] == 2 and result["history"][1]["candidates_tested"] == 1
    assert len(list(replies)) == 3  # attempt 2 was the model's
    with pytest.raises(ConfigError, match="mutants must be an integer >= 0"):
        Context(project=ProjectSettings(mutants=-1))


def test_arguments_class_is_screened_after_the_operators() -> None:
    mutants = line_mutants("x = foo(a - b, c)", {"a", "b", "c"})
    ranks = [m.rank for m in mutants]
    assert ARGUMENTS in ranks and ranks.index(ARGUMENTS) > ranks.index(min(ranks))


def test_each_candidate_is_applied_once_for_its_key_and_its_test(tmp_path: Path, monkeypatch) -> None:
    from codeheal.forms.project import candidate as project_candidate

    calls = []
    real = project_candidate.apply_reply
    monkeypatch.setattr(project_candidate, "apply_reply", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    (tmp_path / "sums.py").write_text(
        "def total(items):\n    result = 0\n    for item in items:\n        result = item\n    return result\n")
    (tmp_path / "test_sums.py").write_text("from sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n")
    graph = build_graph(llm=GenericFakeChatModel(messages=iter([AIMessage("no code here")] * 2))).compile()
    result = graph.invoke({"project": str(tmp_path), "test_command": TEST},
                          context=resolve({"max_attempts": 2, "mutants": 4, "reflect": False}).context)
    assert result["attempts"] == 3
    assert len(calls) == len(set(calls)) == 4 + 1  # the 4 mutations and the model's reply, each once


def test_a_screen_whose_likeliest_mutant_passes_stops_after_its_first_batch(shop: Path) -> None:
    sandbox = CountingSandbox()
    graph = build_graph(llm=no_model(), sandbox=sandbox).compile()
    result = graph.invoke({"project": str(shop), "test_command": TEST}, context=Context(max_attempts=2))
    assert result["status"] == "passed" and result["history"][1]["candidates_tested"] == FIRST_BATCH
    assert len(sandbox.jobs) <= 1 + FIRST_BATCH * 2 < Context().project.mutants  # as is, then the batch


def test_a_screen_with_no_pass_tests_every_mutant_in_growing_batches(tmp_path: Path) -> None:
    (tmp_path / "sums.py").write_text(
        "def total(items):\n    result = 0\n    for item in items:\n        result = item\n    return result\n")
    (tmp_path / "test_sums.py").write_text("from sums import total\n\n\ndef test_total():\n    assert total([1, 2, 3]) == 6\n")
    graph = build_graph(llm=GenericFakeChatModel(messages=iter([AIMessage("no code here")] * 2))).compile()
    context = resolve({"max_attempts": 2, "mutants": 10, "reflect": False}).context
    steps = [dict([update]) for update in node_updates(graph.stream(
        {"project": str(tmp_path), "test_command": TEST}, stream_mode="updates", context=context, subgraphs=True))]
    tested = [sum(1 for c in steps[:i] if "test_candidate" in c) for i, c in enumerate(steps) if "evaluator" in c]
    screen = next(c["evaluator"]["history"][1] for c in steps if c.get("evaluator") and len(c["evaluator"]["history"]) == 2)
    assert screen["candidates_tested"] == 8  # the 10 mutants make 8 distinct changes
    assert tested == [1, 1 + 4, 1 + 8, 1 + 8 + 1]  # as is, the screen's batches of 4 and 4, the model's reply


def test_the_screen_heals_a_changed_default_that_no_test_names(tmp_path: Path) -> None:
    # the defect is `size=11` on the def line, reached only by the call that leaves it out; the body's
    # `items[:size - 1]` also passes the failing test but not the one that gives a size
    (tmp_path / "paging.py").write_text(
        "def page(items, size=11):\n    chosen = list(items)\n    return chosen[:size]\n")
    (tmp_path / "test_paging.py").write_text(
        "from paging import page\n\n\ndef test_default_page():\n    assert len(page(range(30))) == 10\n\n\n"
        "def test_given_size():\n    assert len(page(range(30), 5)) == 5\n")
    graph = build_graph(llm=no_model()).compile()
    result = graph.invoke({"project": str(tmp_path), "test_command": TEST}, context=Context(max_attempts=2))
    assert result["status"] == "passed" and result["history"][1]["tokens"] == 0
    changed = [line for line in result["diff"].splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == ["-def page(items, size=11):", "+def page(items, size=10):"]
