"""codeheal_bench/scripts/vote_ceiling.py: the pool counts a greedy first attempt once and each sample each
time it was written; candidates are judged in the sandbox on the check's own inputs, one that
kills the runner judged a crash; the vote picks the heaviest group that passes the visible
checks, and a tie with the greedy code's group keeps it."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "codeheal_bench" / "scripts"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "helpers"))

from scripted_openai import ScriptedServer  # noqa: E402

from codeheal import Context  # noqa: E402
from codeheal.sandboxes import sandbox_for  # noqa: E402
from codeheal_bench.mbpp import mbpp_problem  # noqa: E402
from codeheal_bench.problems import load_problems  # noqa: E402
from vote_ceiling import Pool, candidate_pools, judge, problem_reading, rule_pools, rule_reading  # noqa: E402
from vote_samples import draw  # noqa: E402

GREEDY = "def f(x):\n    return 0\n"
SAMPLE = "def f(x):\n    return x\n"


def _run(temperature: float, replies: list[str] | None, code: str, started_at: float) -> dict:
    log = [{"attempt": 1, "replies": replies}] if replies is not None else [{"attempt": 1}]
    return {"model": "m", "task_id": "P/0", "context": {"temperature": temperature}, "attempt_log": log,
            "code": code, "status": "passed", "hidden_passed": False, "started_at": started_at}


def test_a_greedy_first_attempt_counts_once_and_each_sample_each_time() -> None:
    fenced = f"```python\n{SAMPLE}```"
    runs = [_run(0.0, [GREEDY], GREEDY, 1.0), _run(0.0, [GREEDY], GREEDY, 2.0),
            _run(0.7, [fenced], SAMPLE, 3.0), _run(0.7, [fenced], SAMPLE, 4.0),
            _run(0.0, None, "def f(x):\n    return 1\n", 5.0)]  # an older record without replies
    pool = candidate_pools(runs)["m"]["P/0"]
    assert pool.greedy == {GREEDY.strip("\n"): 2}
    assert pool.weights == {GREEDY.strip("\n"): 1, SAMPLE.strip("\n"): 2}


def _row(visible: bool, hidden: bool, behaviour: str) -> dict:
    return {"loads": True, "visible": visible, "hidden": hidden, "behaviour": behaviour}


def test_the_vote_picks_the_heaviest_visible_group_and_a_tie_keeps_the_greedy_code() -> None:
    rows = {"g": _row(True, False, "b1"), "s": _row(True, True, "b2"), "t": _row(True, True, "b2"),
            "x": _row(False, True, "b3")}
    outvoted = problem_reading(Pool(Counter({"g": 1, "s": 1, "t": 1, "x": 5}), Counter({"g": 1})), rows)
    assert outvoted["vote"] and not outvoted["greedy"] and outvoted["greedy_visible_only"]
    assert outvoted["perfect_chooser"] and not outvoted["vote_visible_only"]
    tied = problem_reading(Pool(Counter({"g": 1, "s": 1}), Counter({"g": 1})), rows)
    assert not tied["vote"] and tied["vote_visible_only"] and tied["vote_best"] and not tied["vote_worst"]


def test_candidates_are_judged_in_the_sandbox_and_one_that_kills_the_runner_is_a_crash() -> None:
    problem = next(p for p in load_problems(3) if p.task_id == "HumanEval/2")
    right = "def truncate_number(number):\n    return number % 1.0\n"
    also_right = "def truncate_number(number):\n    return number - int(number)\n"
    constant = "def truncate_number(number):\n    return 0.5\n"  # passes the one visible example only
    killer = "import os\nos._exit(3)\n"
    rows = asyncio.run(judge(problem, [right, killer, also_right, constant], sandbox_for(Context(sandbox="local"))))
    assert rows[right]["visible"] and rows[right]["hidden"]
    assert rows[also_right]["behaviour"] == rows[right]["behaviour"]
    assert rows[constant]["visible"] and not rows[constant]["hidden"]
    assert rows[constant]["behaviour"] != rows[right]["behaviour"]
    assert rows[killer] == {"loads": False, "visible": False, "hidden": False, "behaviour": "!crashed"}


def test_an_mbpp_problem_is_judged_on_its_asserts_inputs_with_its_code_alone_as_the_reference() -> None:
    problem = mbpp_problem({"task_id": 901, "text": "Write a function to double a number.",
                            "code": "def double(n):\n    return n * 2", "test_setup_code": "",
                            "test_list": ["assert double(2) == 4", "assert double(5) == 10", "assert double(0) == 0"]})
    assert problem.reference == "def double(n):\n    return n * 2"
    right, also_right = "def double(n):\n    return n + n\n", "def double(n):\n    return 2 * n\n"
    weak = "def double(n):\n    return 4\n"  # passes the one visible assert only
    rows = asyncio.run(judge(problem, [right, also_right, weak], sandbox_for(Context(sandbox="local"))))
    assert rows[right]["hidden"] and rows[right]["behaviour"] == rows[also_right]["behaviour"]
    assert rows[weak]["visible"] and not rows[weak]["hidden"] and rows[weak]["behaviour"] != rows[right]["behaviour"]


def test_a_function_named_check_like_the_official_test_is_judged_as_itself() -> None:
    problem = mbpp_problem({"task_id": 56, "text": "Check if a number is even.",
                            "code": "def check(n):\n    return n % 2 == 0", "test_setup_code": "",
                            "test_list": ["assert check(2) == True", "assert check(3) == False", "assert check(8) == True"]})
    right, wrong = "def check(n):\n    return not n % 2\n", "def check(n):\n    return n > 1\n"
    helper = "def check(n):\n    return n % 2 == 0\n\ndef even(n):\n    return check(n)\n"  # a helper named check
    rows = asyncio.run(judge(problem, [right, wrong], sandbox_for(Context(sandbox="local"))))
    assert rows[right]["hidden"] and rows[wrong]["visible"] and not rows[wrong]["hidden"]
    even = mbpp_problem({"task_id": 57, "text": "Check if a number is even.", "code": helper, "test_setup_code": "",
                         "test_list": ["assert even(2) == True", "assert even(3) == False"]})
    assert asyncio.run(judge(even, [helper], sandbox_for(Context(sandbox="local"))))[helper]["hidden"]
    assert rows[right]["behaviour"] != rows[wrong]["behaviour"]


def test_samples_are_drawn_where_the_greedy_attempt_passed_and_pool_as_samples(tmp_path: Path) -> None:
    problems = load_problems(4)
    greedy = tmp_path / "greedy"
    greedy.mkdir()
    (greedy / "humaneval.jsonl").write_text("".join(
        json.dumps({"condition": "one_shot", "model": "fake-coder", "task_id": p.task_id,
                    "status": "passed" if p.task_id in ("HumanEval/1", "HumanEval/3") else "failed"}) + "\n"
        for p in problems), encoding="utf-8")
    temperatures = []

    def script(body: dict) -> str:
        temperatures.append(body.get("temperature"))
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        problem = next(p for p in problems if f"def {p.entry_point}(" in text)
        return f"```python\n{problem.reference}\n```\n"

    out = tmp_path / "samples"
    with ScriptedServer(script) as fake:
        asyncio.run(draw("all", 2, "fake-coder", greedy, out, base_url=fake.url, limit=1))
        asyncio.run(draw("all", 2, "fake-coder", greedy, out, base_url=fake.url))  # resumes: HumanEval/1 is done
    records = [json.loads(line) for line in (out / "humaneval.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["sample_seed"]) for r in records] == [
        ("HumanEval/1", 1), ("HumanEval/1", 2), ("HumanEval/3", 1), ("HumanEval/3", 2)]
    assert all(r["condition"] == "one_sample" and r["hidden_passed"] for r in records)
    assert len(temperatures) == 4 and all(t and t > 0 for t in temperatures)
    pool = candidate_pools(records)["fake-coder"]["HumanEval/3"]
    assert not pool.greedy and sum(pool.weights.values()) == 2


def test_the_rule_pools_the_greedy_code_with_a_problems_samples_and_counts_turned_against_broken() -> None:
    greedy = [{**_run(0.0, [GREEDY], GREEDY, 1.0), "condition": "one_shot"},
              {**_run(0.0, [GREEDY], GREEDY, 2.0), "condition": "one_shot", "task_id": "P/1"}]
    samples = [_run(0.7, [f"```python\n{SAMPLE}```"], SAMPLE, float(n)) for n in range(4)]
    samples.append({**_run(0.7, [SAMPLE], SAMPLE, 9.0), "task_id": "P/1"})  # one sample of 4: left out
    pools = rule_pools(greedy, samples, "m", 4)
    assert list(pools) == ["P/0"]
    assert pools["P/0"].weights == {GREEDY.strip("\n"): 1, SAMPLE.strip("\n"): 4}
    turned = {"greedy": False, "greedy_visible_only": True, "vote": True, "perfect_chooser": True}
    broken = {"greedy": True, "greedy_visible_only": False, "vote": False, "perfect_chooser": True}
    kept = {"greedy": True, "greedy_visible_only": False, "vote": True, "perfect_chooser": True}
    reading = rule_reading({"a": turned, "b": broken, "c": kept, "d": turned, "e": turned})
    assert (reading["turned"], reading["broken"], reading["met"]) == (["a", "d", "e"], ["b"], False)
    assert rule_reading({"a": turned, "d": turned, "e": turned, "c": kept})["met"]


def test_mbpp_samples_are_drawn_where_the_greedy_attempt_passed_and_the_rule_reads_them(tmp_path: Path) -> None:
    items = [{"task_id": n, "text": "Write a function to double a number.", "code": "def double(x):\n    return 2 * x",
              "test_setup_code": "", "test_list": [f"assert double({n}) == {2 * n}", "assert double(0) == 0"]}
             for n in (12, 14)]
    data = tmp_path / "mbpp.jsonl"
    data.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    greedy = tmp_path / "greedy"
    greedy.mkdir()
    weak = "def double(x):\n    return 24\n"  # the greedy code: passes Mbpp/12's visible assert only
    (greedy / "mbpp.jsonl").write_text("".join(
        json.dumps({**_run(0.0, [weak], weak, 1.0), "condition": "one_shot", "model": "fake-coder", "task_id": task,
                    "status": "passed" if task == "Mbpp/12" else "failed"}) + "\n"
        for task in ("Mbpp/12", "Mbpp/14")), encoding="utf-8")
    out = tmp_path / "samples"
    with ScriptedServer(lambda body: "```python\ndef double(x):\n    return x * 2\n```\n") as fake:
        asyncio.run(draw("all", 2, "fake-coder", greedy, out, base_url=fake.url, suite="mbpp", data=data))
    records = [json.loads(line) for line in (out / "mbpp.jsonl").read_text().splitlines()]
    assert [(r["task_id"], r["sample_seed"], r["hidden_passed"]) for r in records] == [
        ("Mbpp/12", 1, True), ("Mbpp/12", 2, True)]
    pools = rule_pools([json.loads(line) for line in (greedy / "mbpp.jsonl").read_text().splitlines()], records,
                       "fake-coder", 2)
    assert list(pools) == ["Mbpp/12"] and sum(pools["Mbpp/12"].weights.values()) == 3
