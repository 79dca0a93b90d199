"""Learning what pays per model: the outcome of each routed retry is counted in the graph's
store, and the policy chooses by the counts (Thompson sampling over Beta priors)."""

from __future__ import annotations

from typing import Any

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, ScriptedModel, fenced
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.store.memory import InMemoryStore

from codeheal import Context, build_graph
from codeheal.checkpointers import open_checkpointer, open_store
from codeheal.learning import NAMESPACE, choose, counts, forget, prior, record
from codeheal.rules import SHOWN_KINDS

FAILED_BEFORE = "Your previous attempt failed these checks"
MULTIPLY = "def add(a, b):\n    return a * b\n"


class Learner(ScriptedModel):
    """A model that writes a wrong value first; shown its failure it fixes it (`fixes`) or
    repeats it; asked afresh it writes a right answer when it repeats shown failures, else
    another wrong one."""

    fixes: bool = True

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        shown = FAILED_BEFORE in "\n".join(str(m.content) for m in messages)
        if len(self.calls) == 1:
            code = BAD_ADD
        elif shown:
            code = GOOD_ADD if self.fixes else BAD_ADD
        else:
            code = MULTIPLY if self.fixes else GOOD_ADD
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=fenced(code)))])


def first_retry_shown(store, name: str, fixes: bool) -> bool:
    model = Learner(messages=iter([]), fixes=fixes)
    graph = build_graph(llm=model).compile(store=store)
    graph.invoke({"task": "Add two numbers.", "tests": ADD_TESTS}, context=Context(model=name, policy="adaptive", max_attempts=4))
    return FAILED_BEFORE in model.prompt(1)


@pytest.mark.default_policy
def test_the_policy_learns_to_show_a_fixer_its_failures_and_to_resample_a_repeater():
    store = InMemoryStore()
    fixer = [first_retry_shown(store, "fixer", True) for _ in range(12)]
    repeater = [first_retry_shown(store, "repeater", False) for _ in range(12)]
    assert not fixer[0] and not repeater[0]  # a wrong value: a fresh sample first
    assert fixer[-4:] == [True] * 4, fixer
    assert repeater[-4:] == [False] * 4, repeater
    learned = store.get((*NAMESPACE, "fixer"), "value").value
    assert learned["shown"][0] > 0 and learned["fresh"][1] > 0


def test_the_priors_of_the_embedded_models_favour_fresh_samples_after_a_wrong_value():
    for model in ("local-0.5b", "local-1.5b"):
        beliefs = prior(model, "value", SHOWN_KINDS)
        mean = {a: s / (s + f) for a, (s, f) in beliefs.items()}
        assert mean["fresh"] > mean["shown"], model
    assert prior("endpoint", "format", SHOWN_KINDS)["shown"][0] > prior("endpoint", "format", SHOWN_KINDS)["fresh"][0]


def test_the_choice_is_deterministic_under_a_seed_and_follows_the_counts():
    store = InMemoryStore()
    beliefs = counts(store, "m", "value", SHOWN_KINDS)
    assert choose(beliefs, "seed") == choose(beliefs, "seed")
    for _ in range(40):
        record(store, "m", {"attempt": 2, "kind": "value", "action": "shown"}, True)
        record(store, "m", {"attempt": 2, "kind": "value", "action": "fresh"}, False)
    learned = counts(store, "m", "value", SHOWN_KINDS)
    assert all(choose(learned, str(seed)) == "shown" for seed in range(20))


def test_what_pays_is_kept_in_a_sqlite_store_beside_the_checkpoints(tmp_path):
    path = tmp_path / "checkpoints.sqlite"
    with open_checkpointer(path), open_store(path) as store:
        record(store, "m", {"attempt": 2, "kind": "format", "action": "shown"}, True)
    with open_store(path) as store:
        assert store.get((*NAMESPACE, "m"), "format").value == {"shown": [1.0, 0.0], "fresh": [0.0, 0.0]}


@pytest.mark.policy("resample")
def test_a_test_names_the_policy_it_runs():
    assert Context().policy.name == "resample"


@pytest.mark.policy("adaptive")
def test_a_second_cli_run_in_the_same_state_dir_sees_what_the_first_learned(tmp_path, capsys):
    from scripted_openai import ADD_TASK, ScriptedServer, replies_in_order

    from codeheal.cli import main

    tests, path = tmp_path / "tests.py", tmp_path / "state" / "checkpoints.sqlite"
    tests.write_text(ADD_TESTS)
    solve = ["solve", ADD_TASK, "--tests", str(tests), "--model", "learner", "--checkpointer", str(path), "--json"]
    outcomes = []
    with ScriptedServer(replies_in_order([fenced(BAD_ADD), fenced(GOOD_ADD)] * 2, "")) as server:
        for _ in range(2):
            assert main([*solve, "--base-url", server.url]) == 0
            forget()  # the process's own memory is no store: only the SQLite file carries what was learned
            with open_store(path) as store:
                outcomes.append(sum(sum(pair) for pair in store.get((*NAMESPACE, "learner"), "value").value.values()))
    assert outcomes == [1, 2]


@pytest.mark.parametrize("model", ["local-1.5b", "local-0.5b", "gpt-4.1-mini", "odd%2Ename", "odd.name"])
def test_model_names_with_periods_are_counted_apart(model: str) -> None:
    # the store refuses a namespace label with a period: the embedded models' names have one
    store = InMemoryStore()
    record(store, model, {"attempt": 2, "kind": "value", "action": "fresh", "model": model}, True)
    assert counts(store, model, "value", frozenset())["fresh"][0] == prior(model, "value", frozenset())["fresh"][0] + 1
    others = {"odd%2Ename": "odd.name", "odd.name": "odd%2Ename"}
    if model in others:
        assert counts(store, others[model], "value", frozenset()) == prior(others[model], "value", frozenset())


def test_the_default_model_name_starts_from_what_was_measured_for_the_model_it_names() -> None:
    assert prior("local", "value", frozenset()) == prior("local-1.5b", "value", frozenset())
    assert prior("local", "value", frozenset()) != prior("someone-elses-model", "value", frozenset())
