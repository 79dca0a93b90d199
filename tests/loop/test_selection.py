"""Choosing by execution when an attempt passes the user's tests (CodeT-style): more
candidates, inputs the model writes itself (no expected values), the candidate whose outputs
the most candidates share kept; a second round of samples only when the first disagrees.
Generated inputs only ever choose; the verdict is the user's tests' alone."""

from __future__ import annotations

from doubles import CountingSandbox, fenced, node_updates, scripted

from codeheal import Context, build_graph
from codeheal.context import ModuleSettings, resolve
from codeheal.evaluation.hollow import STATIC_CHECK
from codeheal.nodes.selection import choose_by_agreement, parse_generated_inputs, visible_feedback
from codeheal.state import State

TASK = "Return the absolute value of x.\n\n```python\ndef absolute(x):\n    \"\"\"|x|\"\"\"\n```"
WEAK_TESTS = "assert absolute(-2) == 2\n"
NEGATE = "def absolute(x):\n    return -x\n"  # passes the one visible check
NEGATE_TOO = "def absolute(x):\n    return -1 * x\n"
RIGHT = "def absolute(x):\n    return abs(x)\n"
RIGHT_TOO = "def absolute(x):\n    return x if x >= 0 else -x\n"
PROBES = "absolute(3)\nabsolute(0)\nabsolute(-5)\nabsolute(y)\n"  # the last is no literal input: dropped


def run(model, tests=WEAK_TESTS, **context):
    sandbox = CountingSandbox()
    app = build_graph(llm=model, sandbox=sandbox).compile()
    steps, result = [], None
    for namespace, mode, data in app.stream({"task": TASK, "tests": tests}, context=resolve(context).context,
                                            stream_mode=["updates", "values"], subgraphs=True):
        if mode == "updates":
            steps += [node for node, _ in node_updates([(namespace, data)])]
        elif not namespace:
            result = data
    return result, steps, sandbox, model


def test_a_pass_chooses_the_candidate_whose_outputs_most_candidates_share():
    # NEGATE passes the one visible check; on the generated inputs the first round disagrees
    # (NEGATE_TOO gives NEGATE's outputs, RIGHT others), so a second round is drawn; RIGHT is
    # drawn twice, and its group (RIGHT, RIGHT_TOO, RIGHT again) outvotes NEGATE's.
    model = scripted(fenced(NEGATE), fenced(PROBES), fenced(NEGATE_TOO), fenced(RIGHT), fenced(RIGHT_TOO), fenced(RIGHT))
    result, steps, sandbox, model = run(model, select_samples=4)
    assert steps == ["prepare", "actor", "prepare_candidates", "test_candidate", "evaluator", "selector",
                     "test_candidate", "test_candidate", "test_candidate", "evaluator", "selector",
                     "test_candidate", "evaluator", "finish"]
    assert result["status"] == "passed" and result["attempts"] == 2
    assert result["code"].strip() == RIGHT.strip()
    selected = result["history"][-1]
    assert selected["selection"] == {"candidates": 5, "eligible": 5, "generated_inputs": 3, "agreeing": 3}
    assert selected["summary"].startswith("passed 1/1 (chosen by execution: 3 of 5 candidates")
    # the extra samples come from the first prompt: no failure, no reflection
    assert model.prompt(2) == model.prompt(0) and model.prompt(5) == model.prompt(0)
    # every candidate ran the user's check and the three runnable generated inputs
    assert all(job.files["test_solution.py"].count("def test_line_") == 4 for job in sandbox.jobs[1:])
    assert "(absolute(3))" in sandbox.jobs[1].files["test_solution.py"]


def test_a_first_round_that_agrees_stops_the_choice_and_selection_off_finishes_at_the_pass():
    strong = WEAK_TESTS + "assert absolute(5) == 5\n"
    model = scripted(fenced(RIGHT), fenced(PROBES), fenced(RIGHT_TOO), fenced(RIGHT))
    result, steps, _, model = run(model, tests=strong, select_samples=4)
    assert steps == ["prepare", "actor", "prepare_candidates", "test_candidate", "evaluator", "selector", "test_candidate",
                     "test_candidate", "evaluator", "finish"]
    assert len(model.calls) == 4 and result["code"].strip() == RIGHT.strip()
    assert result["history"][-1]["selection"]["agreeing"] == 3
    result, steps, _, model = run(scripted(fenced(NEGATE)), select_samples=0)
    assert "selector" not in steps and result["status"] == "passed" and len(model.calls) == 1


def test_a_second_round_with_nothing_new_to_test_goes_straight_to_the_choice():
    # the second round draws only copies of candidates already tested: nothing to test, the
    # evaluator chooses at once, counting the copies (NEGATE drawn twice, NEGATE_TOO: 3 votes)
    model = scripted(fenced(NEGATE), fenced(PROBES), fenced(NEGATE_TOO), fenced(RIGHT), fenced(RIGHT), fenced(NEGATE))
    result, steps, _, model = run(model, select_samples=4)
    assert steps[-6:] == ["test_candidate", "test_candidate", "evaluator", "selector", "evaluator", "finish"]
    assert result["code"].strip() == NEGATE.strip() and len(model.calls) == 6
    assert result["history"][-1]["selection"] == {"candidates": 5, "eligible": 5, "generated_inputs": 3, "agreeing": 3}


def test_no_runnable_generated_input_keeps_the_passing_attempt_and_counts_the_tokens():
    result, steps, _, model = run(scripted(fenced(NEGATE), "I cannot think of any."), select_samples=3)
    assert steps == ["prepare", "actor", "prepare_candidates", "test_candidate", "evaluator", "selector", "finish"]
    assert result["status"] == "passed" and result["code"].strip() == NEGATE.strip() and len(model.calls) == 2


def candidate(index: int, *, visible_failed: bool = False, probes_failed: int = 0, error: str | None = None) -> dict:
    failures = [{"test": "test_line_1", "exception": "AssertionError", "actual": "-2"}] if visible_failed else []
    failures += [{"test": f"test_line_{n}", "exception": "AssertionError", "actual": "?"} for n in range(2, 2 + probes_failed)]
    feedback = {"passed": not failures and not error, "passed_count": 0, "total": 4, "failures": failures,
                "error": error, "seconds": 0.1}
    return {"index": index, "code": f"code {index}", "feedback": feedback}


PROBE_TEXT = "assert absolute(3) == ...\nassert absolute(0) == ...\nassert absolute(-5) == ...\n"


def test_generated_inputs_never_make_a_candidate_that_fails_the_user_s_tests_eligible():
    # candidates 1 and 2 pass on every generated input and agree, but fail the user's check
    candidates = [candidate(0, probes_failed=3), candidate(1, visible_failed=True), candidate(2, visible_failed=True)]
    agreement = choose_by_agreement(candidates, WEAK_TESTS, PROBE_TEXT)
    assert agreement.index == 0 and agreement.selection["eligible"] == 1
    # a run that crashed on the generated inputs is not eligible either (candidate 0 always is)
    agreement = choose_by_agreement([candidate(0, probes_failed=1), candidate(1, error="timed out")], WEAK_TESTS, PROBE_TEXT)
    assert agreement.index == 0 and agreement.selection["eligible"] == 1


def test_a_hollow_pass_is_never_eligible_nor_made_a_pass_by_cutting_the_generated_checks():
    hollow = candidate(1)
    hollow["feedback"] = {**hollow["feedback"], "passed": False, "failures": [
        {"test": STATIC_CHECK, "exception": "NameError", "actual": None}]}
    agreement = choose_by_agreement([candidate(0, probes_failed=1), hollow, dict(hollow, index=2)], WEAK_TESTS, PROBE_TEXT)
    assert agreement.index == 0 and agreement.selection["eligible"] == 1
    feedback = visible_feedback(hollow["feedback"], WEAK_TESTS, PROBE_TEXT)
    assert not feedback["passed"] and feedback["failures"][0]["test"] == STATIC_CHECK and feedback["passed_count"] == 1


def test_failed_generated_inputs_never_make_the_verdict_failed():
    feedback = visible_feedback(candidate(1, probes_failed=3)["feedback"], WEAK_TESTS, PROBE_TEXT)
    assert feedback["passed"] and feedback["total"] == 1 and feedback["passed_count"] == 1
    assert not feedback["failures"]


def test_parse_probes_keeps_calls_with_literal_inputs_of_the_function_once_each():
    reply = fenced(
        "absolute(3)\nassert absolute(3) == 4\nassert absolute(x) == 1\nassert other(1) == 1\nabsolute(-1)  # edge\n"
        "print(absolute(2))\ny = absolute(x=[1, (2, 'a')])\nabsolute((\nabsolute(__import__('os'))\nimport os; absolute(1)\n"
    )
    assert parse_generated_inputs(reply, "absolute") == [
        "assert absolute(3) == ...", "assert absolute(-1) == ...", "assert absolute(2) == ...",
        "assert absolute(x=[1, (2, 'a')]) == ...",
    ]


def test_the_budget_scales_the_extra_samples_down_and_skips_a_choice_it_cannot_pay_for():
    from codeheal.nodes.selection import affordable_samples

    spent = State(history=[{"tokens": 500}])  # type: ignore[typeddict-item]
    assert affordable_samples(spent, Context(module=ModuleSettings(select_samples=4)), 100, 100, 1)[0] == 4  # no budget
    samples, allowance = affordable_samples(spent, Context(module=ModuleSettings(select_samples=4), max_tokens=2000), 300, 200, 1)
    assert samples == 2 and allowance >= 200
    assert affordable_samples(spent, Context(module=ModuleSettings(select_samples=4), max_tokens=1200), 300, 200, 1) == (0, 0)
    result, steps, _, model = run(scripted(fenced(NEGATE)), select_samples=3, max_tokens=400)
    assert steps[-2:] == ["selector", "finish"] and len(model.calls) == 1 and result["status"] == "passed"
