"""Prompt building: pure functions of state."""

from __future__ import annotations

from codeheal.evaluation.feedback import attempt_feedback
from codeheal.forms.module.prompts import (
    REFLECT_ASK,
    actor_messages,
    numbered_excerpt,
    reflector_messages,
)
from codeheal.nodes.reflector import REFLECTION_MAX_CHARS, condensed_reflection
from codeheal.prompting.parts import format_feedback
from codeheal.state import CheckFailure, Frame


def failure(test: str, line: int | None = None) -> CheckFailure:
    frames = [Frame(file="solution.py", line=line, function="f", source="return x")] if line else []
    return CheckFailure(test=test, exception="AssertionError", message="assert 1 == 2", line=line,
                        frames=frames, expected="2", actual="1")


def test_first_actor_prompt_has_task_tests_and_no_previous_attempt():
    system, human = actor_messages(task="Add.", tests="assert add(1, 2) == 3", entry_point="add",
                                   reflections=[], last_code=None, last_feedback=None)
    assert "```python" in system.content
    assert "Task:\nAdd." in human.content and "assert add(1, 2) == 3" in human.content
    assert "The tests call `add`" in human.content
    assert "Lessons" not in human.content and "previous attempt" not in human.content


MEMORY_SIZE = 5


def test_retry_prompt_has_latest_lessons_and_the_last_failure():
    lessons = [f"lesson {i}" for i in range(MEMORY_SIZE + 2)]
    feedback = {**attempt_feedback(error="boom"), "failures": [failure("test_line_1", 2)]}
    _, human = actor_messages(task="Add.", tests="assert add(1, 2) == 3", entry_point=None,
                              reflections=lessons, last_code="def add(a, b):\n    return a", last_feedback=feedback)
    text = human.content
    assert "lesson 0" not in text and "lesson 1\n" not in text
    assert all(f"- lesson {i}" in text for i in range(2, MEMORY_SIZE + 2))
    assert "The failing attempt (do not repeat it):\n```python\ndef add(a, b):\n    return a\n```" in text
    assert "expected 2, got 1" in text and "boom" in text


def test_reflector_prompt_numbers_the_code_and_marks_the_failing_line():
    feedback = {**attempt_feedback(error=None), "failures": [failure("test_line_1", 2)]}
    system, human = reflector_messages(task="Add.", tests="assert add(1, 1) == 2", entry_point="add",
                                       code="def add(a, b):\n    return a\n", feedback=feedback)
    assert "     1 | def add(a, b):" in human.content
    assert ">>   2 |     return a" in human.content
    assert human.content.endswith(REFLECT_ASK)
    # the actor's prompt and the reflector's share their opening: a server caches it once
    actor = actor_messages(task="Add.", tests="assert add(1, 1) == 2", entry_point="add", reflections=[],
                           last_code=None, last_feedback=None)
    assert system.content == actor[0].content and human.content.startswith(actor[1].content)


def test_long_code_is_cut_to_the_lines_around_failures():
    code = "\n".join(f"x{n} = {n}" for n in range(1, 101))
    excerpt = numbered_excerpt(code, [50], context=2)
    assert excerpt.splitlines() == [
        "    48 | x48 = 48", "    49 | x49 = 49", ">>  50 | x50 = 50", "    51 | x51 = 51", "    52 | x52 = 52",
    ]
    two = numbered_excerpt(code, [10, 90], context=1)
    assert "   ..." in two and ">>  90 | x90 = 90" in two


def test_format_feedback_caps_the_failures_listed():
    feedback = {**attempt_feedback(error=None), "failures": [failure(f"test_{i}") for i in range(8)]}
    text = format_feedback(feedback, max_failures=5)
    assert "test_4" in text and "test_5" not in text
    assert "... and 3 more failed checks." in text


def test_a_lesson_keeps_prose_only_and_a_few_sentences():
    reply = (
        "The sort key is wrong.   It sorts by count ascending.\n\nUse -count first. Then the word.\n"
        "Here is the corrected code:\n```python\ndef f():\n    return 1\n```\nThis will work. Really."
    )
    assert condensed_reflection(reply) == (
        "The sort key is wrong. It sorts by count ascending. Use -count first. Then the word."
    )
    assert condensed_reflection("```python\nx = 1\n```") == ""
    assert len(condensed_reflection("word " * 400)) <= REFLECTION_MAX_CHARS + 4
