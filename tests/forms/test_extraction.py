"""Finding the code in a model's reply."""

from __future__ import annotations

import pytest

from codeheal.prompting.extraction import extract_code

ADD = "def add(a, b):\n    return a + b"


@pytest.mark.parametrize("tag", ["python", "py", "Python", "python3", ""])
def test_fenced_block_with_any_python_tag(tag):
    reply = f"Sure.\n\n```{tag}\n{ADD}\n```\nThat adds."
    assert extract_code(reply) == ADD


def test_several_defining_blocks_are_joined_in_order_and_usage_blocks_dropped():
    reply = (
        "First a helper:\n```python\nimport math\n\ndef sq(x):\n    return x * x\n```\n"
        "Then the function:\n```python\ndef hyp(a, b):\n    return math.sqrt(sq(a) + sq(b))\n```\n"
        "Usage:\n```python\nprint(hyp(3, 4))\n```\n"
    )
    code = extract_code(reply)
    assert code.index("def sq") < code.index("def hyp")
    assert "print(hyp" not in code
    assert compile(code, "solution.py", "exec")


def test_usage_only_block_is_kept_when_nothing_else_is_there():
    assert extract_code("```python\nprint(1)\n```") == "print(1)"


def test_non_python_blocks_are_ignored():
    reply = f"Run:\n```bash\npip install nothing\n```\nCode:\n```python\n{ADD}\n```"
    assert extract_code(reply) == ADD


def test_unclosed_fence_of_a_cut_reply_still_counts():
    assert extract_code(f"```python\n{ADD}\n") == ADD


def test_unfenced_reply_that_is_all_code():
    assert extract_code(ADD + "\n") == ADD


def test_unfenced_code_after_prose_counts_when_it_parses():
    assert extract_code(f"Here you go:\n{ADD}\n") == ADD


def test_unfenced_code_starting_at_the_top_is_kept_even_with_a_syntax_error():
    broken = "def add(a, b)\n    return a + b"
    assert extract_code(broken) == broken  # the evaluator reports the error, not "no code"


@pytest.mark.parametrize("reply", [
    "",
    "I cannot help with that.",
    "The function should define add and return the sum.",
    "```python\n\n```",
    "```bash\nls -la\n```",
])
def test_no_code(reply):
    assert extract_code(reply) is None


def test_the_models_own_top_level_checks_are_dropped():
    reply = (
        "```python\ndef f(x):\n    assert x >= 0\n    return x\n\n"
        "def test_f():\n    assert f(1) == 1\n\n"
        "# Test cases\nassert f(2) == 3\nassert (f(0) ==\n    0)\ntest_f()\nprint(f(1))\n```"
    )
    code = extract_code(reply)
    assert "assert f(2)" not in code and "f(0) ==" not in code and "\ntest_f()" not in code
    assert "    assert x >= 0" in code and "def test_f():" in code and "print(f(1))" in code
    assert extract_code("```python\ndef f(:\nassert 1\n```") == "def f(:\nassert 1"  # unparsable: kept
