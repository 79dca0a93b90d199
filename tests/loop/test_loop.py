"""The whole loop through the public API: a scripted model, real execution in LocalSandbox."""

from __future__ import annotations

import asyncio
import time

from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, fenced, scripted

from codeheal import Context, build_graph, graph
from codeheal.context import resolve


def run(model, inputs, sandbox=None, **context):
    return build_graph(llm=model, sandbox=sandbox).compile().invoke(inputs, context=resolve(context).context)


def test_heals_on_the_second_attempt():
    model = scripted(fenced(BAD_ADD), "add subtracts; it must return a + b.", fenced(GOOD_ADD))
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS})
    assert result["status"] == "passed"
    assert result["attempts"] == 2
    assert result["code"].strip() == GOOD_ADD.strip()
    assert result["reflections"] == ["add subtracts; it must return a + b."]
    assert [h["passed_count"] for h in result["history"]] == [1, 3]
    assert result["history"][0]["reflection"] == "add subtracts; it must return a + b."
    assert len(model.calls) == 3  # actor, reflector, actor


def test_a_reflection_with_no_lesson_is_not_kept_nor_shown_as_one():
    """A reflector reply with no prose (code only) is no reflection: the memory stays empty, the
    attempt records none, and the next prompt shows no "Lessons" section."""
    model = scripted(fenced(BAD_ADD), f"```python\n{GOOD_ADD}```", fenced(GOOD_ADD))
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS})
    assert result["status"] == "passed" and result["reflections"] == []
    assert result["history"][0]["reflection"] is None
    assert "Lessons from earlier" not in "\n".join(str(m.content) for m in model.calls[2])


def test_gives_up_at_the_cap_keeping_the_attempt_that_passed_most():
    two_of_three = "def add(a, b):\n    return a + b if a >= 0 else 99\n"
    model = scripted(
        fenced(BAD_ADD), "lesson 1",
        fenced(two_of_three), "lesson 2",
        fenced("def add(a, b):\n    return 42\n"),
    )
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS}, max_attempts=3)
    assert result["status"] == "failed"
    assert result["attempts"] == 3
    assert [h["passed_count"] for h in result["history"]] == [1, 2, 0]
    assert result["code"].strip() == two_of_three.strip()
    assert result["reflections"] == ["lesson 1", "lesson 2"]
    assert len(model.calls) == 5  # no reflection after the last attempt


def test_reply_without_code_is_a_failed_attempt(sandbox):
    model = scripted("I am not sure how to do that.", "Reply with a code block.", fenced(GOOD_ADD))
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS}, sandbox)
    assert result["status"] == "passed"
    assert result["attempts"] == 2
    assert "no code in reply" in result["history"][0]["summary"]
    assert "no code in reply" in model.prompt(1)  # the reflector was told
    assert len(sandbox.jobs) == 1  # nothing to run for the empty attempt


def test_syntax_error_is_feedback_with_line_and_caret_and_runs_nothing(sandbox):
    broken = "def add(a, b)\n    return a + b\n"
    model = scripted(fenced(broken), "Missing colon after the def line.", fenced(GOOD_ADD))
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS}, sandbox)
    assert result["status"] == "passed"
    assert "SyntaxError" in result["history"][0]["summary"]
    reflector_prompt = model.prompt(1)
    assert "solution.py line 1" in reflector_prompt
    assert "    def add(a, b)\n                 ^\n" in reflector_prompt  # caret after ")"
    assert len(sandbox.jobs) == 1  # only the corrected attempt ran


def test_infinite_loop_ends_as_a_timeout():
    timeout_s = 1.5
    model = scripted(fenced("def add(a, b):\n    while True:\n        pass\n"))
    started = time.perf_counter()
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS},
                 max_attempts=1, timeout_s=timeout_s)
    elapsed = time.perf_counter() - started
    assert elapsed < timeout_s + 2
    assert result["status"] == "failed"
    summary = result["history"][0]["summary"]
    assert "timed out" in summary and "test_line_1" in summary


def test_candidate_exception_text_reaches_the_reflector():
    raising = (
        "def add(a, b):\n"
        "    if a < 0 or b < 0:\n"
        "        raise ValueError(f'negative operand not supported: {min(a, b)}')\n"
        "    return a + b\n"
    )
    model = scripted(fenced(raising), "Negative numbers must be added too.", fenced(GOOD_ADD))
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS})
    assert result["status"] == "passed"
    prompt = model.prompt(1)
    assert "ValueError: negative operand not supported: -1" in prompt
    assert ">>   3 |         raise ValueError" in prompt  # the failing line, marked and numbered
    assert "solution.py line 3 in add" in prompt
    # the reflection and the failure reach the next actor prompt
    actor_prompt = model.prompt(2)
    assert "Negative numbers must be added too." in actor_prompt
    assert "negative operand not supported" in actor_prompt


def test_partial_progress_is_counted_per_assert():
    tests = "\n".join(f"assert double({n}) == {2 * n}" for n in (1, 2, 3, 4, 5)) + "\n"
    three_of_five = "def double(n):\n    return 2 * n if n <= 3 else n\n"
    model = scripted(fenced(three_of_five))
    result = run(model, {"task": "Double a number.", "tests": tests}, max_attempts=1)
    record = result["history"][0]
    assert (record["passed_count"], record["total"]) == (3, 5)
    assert result["status"] == "failed"
    assert record["summary"].startswith("failed 3/5 passed")


def test_tests_may_import_from_solution():
    tests = (
        "from solution import add\n"
        "import solution\n\n"
        "def test_add():\n"
        "    assert add(2, 3) == 5\n\n"
        "def test_module_attribute():\n"
        "    assert solution.add(1, 1) == 2\n"
    )
    result = run(scripted(fenced(GOOD_ADD)), {"task": "Add.", "tests": tests})
    assert result["status"] == "passed"
    assert (result["history"][0]["passed_count"], result["history"][0]["total"]) == (2, 2)


def test_async_invoke_heals(sandbox):
    model = scripted(fenced(BAD_ADD), "Use +.", fenced(GOOD_ADD))
    compiled = build_graph(llm=model, sandbox=sandbox).compile()
    result = asyncio.run(compiled.ainvoke({"task": "Add two numbers.", "tests": ADD_TESTS}))
    assert result["status"] == "passed"
    assert result["attempts"] == 2
    assert len(sandbox.jobs) == 2


def test_starting_code_that_passes_needs_no_model():
    model = scripted()
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS, "starting_code": GOOD_ADD})
    assert result["status"] == "passed"
    assert result["attempts"] == 1
    assert model.calls == []


def test_starting_code_that_fails_is_reflected_on_first(sandbox):
    model = scripted("Subtraction instead of addition.", fenced(GOOD_ADD))
    result = run(model, {"task": "Add two numbers.", "tests": ADD_TESTS, "starting_code": BAD_ADD}, sandbox,
                 show_failed_code=True)
    assert result["status"] == "passed"
    assert result["attempts"] == 2
    assert "Do not write code yet." in model.prompt(0)  # the reflector came first
    assert "     2 |     return a - b" in model.prompt(0)  # numbered code, no frame in solution.py
    assert "The failing attempt (do not repeat it):\n```python\ndef add(a, b):\n    return a - b" in model.prompt(1)


def test_public_graph_runs_starting_code_without_any_model(monkeypatch):
    # An unreachable model: reaching the actor would raise ConfigError.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = graph.invoke(
        {"task": "Add two numbers.", "tests": ADD_TESTS, "starting_code": GOOD_ADD},
        context=Context(model="gpt-unreachable"),
    )
    assert result["status"] == "passed"
    assert set(result) == {"code", "status", "attempts", "reflections", "history", "task_checks"}
