"""Reflection memory persists on a thread; attempt counters start fresh each run."""

from __future__ import annotations

import sqlite3

from doubles import fenced, scripted
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite import SqliteSaver

from codeheal import Context, build_graph

ADD_TASK = {"task": "Add two numbers.", "tests": "assert add(2, 3) == 5\n", "entry_point": "add"}
MUL_TASK = {"task": "Multiply two numbers.", "tests": "assert mul(2, 3) == 6\n"}
LESSON = "add returned a - b; the operator must be +."
THREAD = {"configurable": {"thread_id": "thread-1"}}


def first_run_model():
    """Two failed attempts and one lesson in between: the run ends "failed"."""
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
