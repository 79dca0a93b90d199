"""`codeheal-bench humaneval --limit 5` end to end: the real graph, the real sandbox and the
real hidden checks, with a scripted OpenAI-compatible server in place of the model."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from scripted_openai import ScriptedServer

from codeheal_bench import humaneval
from codeheal_bench.cli import main
from codeheal_bench.problems import Problem, load_problems

WRONG_TRUNCATE = "def truncate_number(number: float) -> float:\n    return 0.0\n"


def canonical_solutions(problems: list[Problem], wrong_first: dict[str, str]) -> Callable[[dict], str]:
    """Reply with the canonical solution of the problem the prompt names; at temperature 0
    a problem in `wrong_first` gets that wrong code instead."""

    def script(body: dict) -> str:
        text = "\n".join(str(m.get("content", "")) for m in body["messages"])
        problem = next(p for p in problems if f"def {p.entry_point}(" in text)
        if body.get("temperature", 0) == 0 and problem.task_id in wrong_first:
            code = wrong_first[problem.task_id]
        else:
            code = problem.reference
        return f"Here it is:\n```python\n{code}\n```\n"

    return script


def test_humaneval_limit_5_writes_results_and_resumes(tmp_path, capsys, monkeypatch):
    script = canonical_solutions(load_problems(5), wrong_first={"HumanEval/2": WRONG_TRUNCATE})
    with ScriptedServer(script) as fake:
        base_url = fake.url
        argv = ["humaneval", "--limit", "5", "--concurrency", "2", "--max-attempts", "3",
                "--model", "fake-coder", "--base-url", base_url, "--out", str(tmp_path)]
        assert main(argv) == 0
        calls_first_run = len(fake.requests)

        summary = json.loads((tmp_path / "humaneval.json").read_text())
        assert set(summary) == {"problems", "model", "max_attempts", "conditions", "suite"}
        assert (summary["problems"], summary["model"], summary["max_attempts"]) == (5, "fake-coder", 3)
        conditions = summary["conditions"]
        assert list(conditions) == ["one_shot", "resample", "raw_error", "self_heal", "sample_first", "adaptive", "hedged"]
        for result in conditions.values():
            assert {"passed", "pass_at_1", "mean_attempts", "wall_s", "tokens", "prompt_tokens",
                    "completion_tokens", "slices", "hidden_pass_rate_by_budget"} <= set(result)
            assert result["tokens"] > 0 and result["wall_s"] > 0
            assert result["tokens"] == result["prompt_tokens"] + result["completion_tokens"]
            assert set(result["breakdown"]) == {"prompt_evaluated", "prompt_reused", "prompt_seconds",
                                                "generation_seconds", "sandbox_seconds", "overhead_seconds"}
            assert result["breakdown"]["sandbox_seconds"] > 0  # every condition runs attempt 1's code
        # HumanEval/2's first answer is wrong: one shot keeps it, the other loops fix it
        # with a second sample (resample) or from the visible doctest.
        assert conditions["one_shot"]["passed"] == 4
        assert conditions["one_shot"]["hidden_pass_rate_by_attempt"] == [0.8]
        for healing in ("resample", "raw_error", "self_heal", "sample_first", "adaptive", "hedged"):
            assert conditions[healing]["passed"] == 5
            assert conditions[healing]["mean_attempts"] == 1.2
            assert conditions[healing]["hidden_pass_rate_by_attempt"] == [0.8, 1.0, 1.0]
            assert conditions[healing]["first_attempt_shared"] == 5

        records = [json.loads(line) for line in (tmp_path / "humaneval.jsonl").read_text().splitlines()]
        assert len(records) == 35
        assert all(r["context"]["max_attempts"] == (1 if r["condition"] == "one_shot" else 3) for r in records)
        healed = next(r for r in records if r["condition"] == "self_heal" and r["task_id"] == "HumanEval/2")
        assert [a["kind"] for a in healed["attempt_log"]] == ["failed", "passed"]
        assert len(healed["reflections"]) == 1
        ablated = next(r for r in records if r["condition"] == "raw_error" and r["task_id"] == "HumanEval/2")
        assert ablated["reflections"] == [] and ablated["status"] == "passed"
        resampled = next(r for r in records if r["condition"] == "resample" and r["task_id"] == "HumanEval/2")
        assert resampled["reflections"] == [] and resampled["status"] == "passed"
        # Attempt 1 is made once: 5 one_shot calls, then for HumanEval/2 one retry sample each
        # (the library's default) in resample and raw_error, a reflection and a retry in
        # self_heal, two fresh samples in sample_first, one retry in adaptive (no reflection), and in
        # hedged one sample shown the failure and one fresh (two calls).
        assert calls_first_run == 5 + 1 + 1 + (1 + 1) + 2 + 1 + 2
        assert healed["attempt_log"][1]["candidates_tested"] == 1
        sampled = next(r for r in records if r["condition"] == "sample_first" and r["task_id"] == "HumanEval/2")
        assert sampled["context"]["policy"] == "sample_first" and sampled["context"]["retry_samples"] == 2
        assert sampled["reflections"] == [] and sampled["attempt_log"][1]["candidates_tested"] == 1
        # Each reply is kept as the model wrote it; the shared attempt 1 was one_shot's reply.
        first = next(r for r in records if r["condition"] == "one_shot" and r["task_id"] == "HumanEval/2")
        assert first["attempt_log"][0]["replies"] == [f"Here it is:\n```python\n{WRONG_TRUNCATE}\n```\n"]
        assert sampled["attempt_log"][0]["replies"] == []
        assert [len(a["replies"]) for a in sampled["attempt_log"]] == [0, 2]
        assert all("```python" in reply for reply in sampled["attempt_log"][1]["replies"])
        hedged = next(r for r in records if r["condition"] == "hedged" and r["task_id"] == "HumanEval/2")
        assert hedged["context"]["hedge"] and [len(a["replies"]) for a in hedged["attempt_log"]] == [0, 2]

        report = (tmp_path / "humaneval.md").read_text()
        assert "| self_heal | 5/5 |" in report and "## Failure analysis" in report
        assert "- adaptive: Time: " in report and "s in the sandbox" in report
        assert (tmp_path / "humaneval.png").read_bytes().startswith(b"\x89PNG")
        assert (tmp_path / "humaneval_tokens.png").read_bytes().startswith(b"\x89PNG")

        # A rerun resumes: everything is recorded, so no model call, no new record, and the
        # model is not even loaded (the report is only rewritten).
        monkeypatch.setattr(humaneval, "_warm_up", lambda config: pytest.fail("a complete rerun loaded the model"))
        assert main(argv) == 0
        assert len(fake.requests) == calls_first_run
        assert len((tmp_path / "humaneval.jsonl").read_text().splitlines()) == 35
    assert capsys.readouterr().out.strip().endswith("humaneval.json")


def test_humaneval_runs_one_slice_and_the_conditions_asked_for(tmp_path):
    tuning = load_problems(6, "tuning")
    assert [p.task_id for p in tuning] == [f"HumanEval/{n}" for n in (0, 2, 4, 6, 8, 10)]
    assert [p.task_id for p in load_problems(2, "report")] == ["HumanEval/1", "HumanEval/3"]
    script = canonical_solutions(tuning[:2], wrong_first={"HumanEval/2": WRONG_TRUNCATE})
    with ScriptedServer(script) as fake:
        argv = ["humaneval", "--slice", "tuning", "--limit", "2", "--conditions", "resample",
                "--max-tokens", "2000", "--model", "fake-coder", "--base-url", fake.url, "--out", str(tmp_path)]
        assert main(argv) == 0
    summary = json.loads((tmp_path / "humaneval.json").read_text())
    assert list(summary["conditions"]) == ["one_shot", "resample"]
    records = [json.loads(line) for line in (tmp_path / "humaneval.jsonl").read_text().splitlines()]
    assert sorted((r["condition"], r["task_id"]) for r in records) == [
        ("one_shot", "HumanEval/0"), ("one_shot", "HumanEval/2"), ("resample", "HumanEval/0"), ("resample", "HumanEval/2"),
    ]
    assert all(r["context"]["max_tokens"] == 2000 for r in records)
    tuning_part = summary["conditions"]["resample"]["slices"]["tuning"]
    assert (tuning_part["problems"], tuning_part["passed"], tuning_part["rate"]) == (2, 2, 1.0)
    assert tuning_part["visible_passed_hidden_failed"] == 0
    assert tuning_part["hidden_pass_rate_by_budget"]["6000"] == 1.0
    assert summary["conditions"]["resample"]["slices"]["report"]["problems"] == 0
    report = (tmp_path / "humaneval.md").read_text()
    assert "The tuning slice (2 problems)" in report and "The report slice" not in report

    # --report-only runs nothing: it rewrites the report of the
    # records there, a condition counting the problems it finished.
    records_file = tmp_path / "humaneval.jsonl"
    records_file.write_text("".join(line + "\n" for line in records_file.read_text().splitlines()[:3]))
    assert main([*argv, "--report-only"]) == 0  # the server is gone: a model call would fail
    assert len(records_file.read_text().splitlines()) == 3
    partial = json.loads((tmp_path / "humaneval.json").read_text())["conditions"]
    assert (partial["one_shot"]["finished"], partial["resample"]["finished"]) == (2, 1)


def test_the_adaptive_condition_keeps_what_it_learned_in_the_run_dir_and_a_resumed_run_goes_on(tmp_path):
    from langgraph.store.sqlite import SqliteStore

    from codeheal.learning import NAMESPACE, forget

    wrong = {"HumanEval/1": "def separate_paren_groups(paren_string: str) -> list:\n    return []\n",
             "HumanEval/2": WRONG_TRUNCATE}
    script = canonical_solutions(load_problems(3), wrong_first=wrong)

    def outcomes() -> float:
        with SqliteStore.from_conn_string(str(tmp_path / "what_pays.sqlite")) as store:
            items = store.search((*NAMESPACE, "fake-coder"))
            return sum(sum(pair) for item in items for pair in item.value.values())

    with ScriptedServer(script) as fake:
        for limit, learned in (("2", 1), ("3", 2)):  # the second run resumes the first
            argv = ["humaneval", "--limit", limit, "--conditions", "adaptive", "--model", "fake-coder",
                    "--base-url", fake.url, "--out", str(tmp_path)]
            assert main(argv) == 0
            forget()  # the process's own memory is no store: the run dir's file carries it
            assert outcomes() == learned
    summary = json.loads((tmp_path / "humaneval.json").read_text())
    assert list(summary["conditions"]) == ["one_shot", "adaptive"]
    assert summary["conditions"]["adaptive"]["passed"] == 3
