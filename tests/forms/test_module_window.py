"""The module form's prompts fitted to the model's window (`codeheal solve`): a retry's prompt
leaves out what it can spare until it fits, a prompt whose least does not fit goes as it is,
and a prompt the server refuses is a failed attempt saying so, never the run's end (exit 2)."""

from __future__ import annotations

from pathlib import Path

from doubles import scripted
from scripted_openai import ScriptedServer

from codeheal import build_graph
from codeheal.cli import main
from codeheal.context import resolve
from codeheal.forms.module.prompts import fitted_actor_messages, fitted_reflector_messages
from codeheal.llm.factory import MAX_TOKENS
from codeheal.prompting.model_window import MARGIN_TOKENS
from codeheal.state import CheckFailure, Feedback
from codeheal.tokens import ESTIMATE

TASK = "Write add(a, b): the sum of a and b."
TESTS = "from solution import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n"
LONG_WRONG = "```python\ndef add(a, b):\n    " + "\n    ".join(f"# step {i}: add them up" for i in range(300)) \
    + "\n    return a - b\n```"
RIGHT = "```python\ndef add(a, b):\n    return a + b\n```"
LEAST_ROOM = 400
"""Prompt tokens a window leaves beside the reply: the task and tests fit, the long attempt not."""
TOO_LONG = "request (10647 tokens) exceeds the available context size (4096 tokens)"


def feedback(line: int | None = 2) -> Feedback:
    failing = CheckFailure(test="test_add", exception="AssertionError", message="assert -1 == 3", line=line,
                           frames=[], expected="3", actual="-1")
    return Feedback(passed=False, total=1, passed_count=0, failures=[failing], error=None, stdout="", stderr="",
                    output_truncated=False, timed_out=False)


def test_a_retry_leaves_out_the_lessons_then_the_code_then_the_failure_until_it_fits() -> None:
    parts = {"task": TASK, "tests": TESTS, "entry_point": "add", "reflections": ["x" * 3000],
             "last_code": LONG_WRONG, "last_feedback": feedback()}
    window = MAX_TOKENS + MARGIN_TOKENS + LEAST_ROOM
    _, human = fitted_actor_messages(window=10**6, reply_tokens=MAX_TOKENS, counter=ESTIMATE, **parts)
    assert "Lessons" in human.content and "The failing attempt" in human.content
    prompt = fitted_actor_messages(window=window, reply_tokens=MAX_TOKENS, counter=ESTIMATE, **parts)
    human = prompt[1].content
    assert "Lessons" not in human and "The failing attempt" not in human and "assert -1 == 3" in human
    assert ESTIMATE.prompt_tokens(prompt) + MAX_TOKENS + MARGIN_TOKENS <= window
    least = fitted_actor_messages(window=MAX_TOKENS, reply_tokens=MAX_TOKENS, counter=ESTIMATE, **parts)
    assert TASK in least[1].content and TESTS.strip() in least[1].content, "the task and tests are never cut"
    assert "previous attempt" not in least[1].content
    reflector = fitted_reflector_messages(window=window, reply_tokens=200, counter=ESTIMATE, task=TASK, tests=TESTS,
                                          entry_point="add", code=LONG_WRONG, feedback=feedback(None))
    assert "step 1" not in reflector[1].content and "assert -1 == 3" in reflector[1].content


def test_a_solve_run_fits_its_retry_to_a_small_window_and_heals() -> None:
    model = scripted(LONG_WRONG, "The sum uses minus.", RIGHT)
    window = MAX_TOKENS + MARGIN_TOKENS + LEAST_ROOM
    result = build_graph(llm=model).compile().invoke(
        {"task": TASK, "tests": TESTS}, context=resolve({"context_size": window, "max_attempts": 3}).context)
    assert result["status"] == "passed" and result["attempts"] == 2
    for prompt in model.calls:
        assert ESTIMATE.prompt_tokens(prompt) + MAX_TOKENS + MARGIN_TOKENS <= window
    retry = model.calls[-1][1].content
    assert "step 1" not in retry and "0 of 1 checks passed" in retry, "the failure shown, the long code left out"


def test_a_solve_run_whose_every_prompt_is_refused_fails_saying_why_never_exit_2(tmp_path: Path, capsys) -> None:
    tests = tmp_path / "tests.py"
    tests.write_text(TESTS)
    with ScriptedServer(refuse=lambda body: TOO_LONG) as server:
        code = main(["solve", TASK, "--tests", str(tests), "--model", "m", "--base-url", server.url,
                     "--max-attempts", "2", "--checkpointer", str(tmp_path / "checkpoints.sqlite")])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 1 and "the prompt is larger than the model's context" in err
    assert server.refused and len(server.refused) == len(server.requests)
