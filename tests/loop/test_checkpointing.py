"""Reflection memory persists on a thread; attempt counters start fresh each run; a run cut short
mid-attempt resumes inside its attempt."""

from __future__ import annotations

import sqlite3

import pytest
from doubles import ADD_TESTS, BAD_ADD, GOOD_ADD, CountingSandbox, fenced, scripted
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from codeheal import Context, build_graph
from codeheal.context import Policy, resolve
from codeheal.forms.module.form import ModuleForm

ADD_TASK = {"task": "Add two numbers.", "tests": "assert add(2, 3) == 5\n", "entry_point": "add"}
MUL_TASK = {"task": "Multiply two numbers.", "tests": "assert mul(2, 3) == 6\n"}
LESSON = "add returned a - b; the operator must be +."
THREAD = {"configurable": {"thread_id": "thread-1"}}


def first_run_model():
    """Two failed attempts and one reflection in between: the run ends "failed"."""
    return scripted(fenced("def add(a, b):\n    return a - b\n"), LESSON,
                    fenced("def add(a, b):\n    return a * b\n"))


def assert_first_run(result):
    assert (result["status"], result["attempts"], result["reflections"]) == ("failed", 2, [LESSON])


def assert_second_run_remembers(model, result):
    assert result["status"] == "passed"
    assert result["attempts"] == 1  # a fresh count: not 3
    assert result["reflections"] == [LESSON]
    assert len(model.calls) == 1  # the old best code was not re-tested; the actor wrote anew
    assert "Lessons from earlier failed attempts:\n- " + LESSON in model.prompt(0)
    assert [h["attempt"] for h in result["history"]] == [1]


def test_reflections_persist_with_in_memory_saver():
    saver = InMemorySaver()
    first = build_graph(llm=first_run_model()).compile(checkpointer=saver)
    assert_first_run(first.invoke(ADD_TASK, THREAD, context=Context(max_attempts=2)))

    model = scripted(fenced("def mul(a, b):\n    return a * b\n"))
    second = build_graph(llm=model).compile(checkpointer=saver)
    assert_second_run_remembers(model, second.invoke(MUL_TASK, THREAD, context=Context(max_attempts=2)))

    other = build_graph(llm=scripted(fenced("def mul(a, b):\n    return a * b\n"))).compile(checkpointer=saver)
    assert other.invoke(MUL_TASK, {"configurable": {"thread_id": "thread-2"}})["reflections"] == []


def test_reflections_persist_with_sqlite_through_a_new_connection(tmp_path):
    db = tmp_path / "checkpoints.sqlite"
    with sqlite3.connect(db, check_same_thread=False) as conn:
        graph = build_graph(llm=first_run_model()).compile(checkpointer=SqliteSaver(conn))
        assert_first_run(graph.invoke(ADD_TASK, THREAD, context=Context(max_attempts=2)))

    model = scripted(fenced("def mul(a, b):\n    return a * b\n"))
    with SqliteSaver.from_conn_string(str(db)) as saver:
        graph = build_graph(llm=model).compile(checkpointer=saver)
        assert graph.get_state(THREAD).values["reflections"] == [LESSON]
        assert_second_run_remembers(model, graph.invoke(MUL_TASK, THREAD, context=Context(max_attempts=2)))


class CrashOnce(CountingSandbox):
    """A LocalSandbox whose first job for `marker` crashes, as a process killed mid-test would."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker, self.crashed = marker, False

    async def arun(self, job):
        if self.marker in job.files["solution.py"] and not self.crashed:
            self.crashed = True
            raise RuntimeError("the sandbox died")
        return await super().arun(job)


def test_a_run_cut_short_mid_attempt_resumes_inside_the_attempt():
    other_good = "def add(a, b):\n    return sum((a, b))\n"
    model = scripted(fenced(BAD_ADD), LESSON, fenced("def add(a, b):\n    return 42\n"), fenced(GOOD_ADD), fenced(other_good))
    sandbox = CrashOnce("sum((a, b))")
    app = build_graph(llm=model, sandbox=sandbox).compile(checkpointer=InMemorySaver())
    context = resolve({"retry_samples": 3, "policy": "self_heal"}).context
    with pytest.raises(RuntimeError, match="the sandbox died"):
        app.invoke({"task": "Add two numbers.", "tests": ADD_TESTS}, THREAD, context=context, durability="sync")
    paused = app.get_state(THREAD, subgraphs=True)
    assert paused.next == ("attempt",) and paused.values["attempts"] == 1
    (attempt,) = paused.tasks
    assert attempt.state.next == ("test_candidate",) and len(attempt.state.values["tested"]) == 2  # two of three done
    before, calls = len(sandbox.jobs), len(model.calls)
    result = app.invoke(None, THREAD, context=context, durability="sync")
    assert [job.files["solution.py"].strip() for job in sandbox.jobs[before:]] == [other_good.strip()]  # only the one cut short
    assert result["status"] == "passed" and result["attempts"] == 2 and result["reflections"] == [LESSON]
    assert result["history"][-1]["candidates_tested"] == 3 and len(model.calls) == calls  # nothing drawn again


def test_a_run_cut_short_between_the_draw_and_its_preparing_resumes_without_drawing_again(monkeypatch):
    """The checkpoint after the actor's draw (here its draw once more, every reply of the first
    having repeated failed code) holds the candidates and the repeats already prepared: the
    resumed run prepares and tests them, and calls the model no more."""
    prepare, crashed = ModuleForm.prepare, []

    def crash_once(self, state, candidate):
        if "a + b" in (candidate or "") and not crashed:
            crashed.append(candidate)
            raise RuntimeError("killed while preparing")
        return prepare(self, state, candidate)

    monkeypatch.setattr(ModuleForm, "prepare", crash_once)
    model = scripted(fenced(BAD_ADD), LESSON, fenced(BAD_ADD), fenced(GOOD_ADD))
    sandbox = CountingSandbox()
    app = build_graph(llm=model, sandbox=sandbox).compile(checkpointer=InMemorySaver())
    context = Context(max_attempts=3, policy=Policy.preset("self_heal", fresh_start=False))
    with pytest.raises(RuntimeError, match="killed while preparing"):
        app.invoke({"task": "Add two numbers.", "tests": ADD_TESTS}, THREAD, context=context, durability="sync")
    (attempt,) = app.get_state(THREAD, subgraphs=True).tasks
    assert attempt.state.next == ("prepare_candidates",) and attempt.state.values["repeats"]
    assert len(model.calls) == 4 and len(sandbox.jobs) == 1
    result = app.invoke(None, THREAD, context=context, durability="sync")
    assert (result["status"], result["attempts"]) == ("passed", 2)
    assert len(model.calls) == 4 and len(sandbox.jobs) == 2  # nothing drawn again, the repeat not tested
    assert result["history"][1]["candidates_tested"] == 1
