"""Embedding codeheal in a bigger agent: plan -> write code with codeheal -> summarise.

The parent agent is shown both ways LangGraph offers:

- ``build_direct_parent``: codeheal's compiled graph is added as a node. The parent names
  its keys as codeheal does (task, tests, code, status, reflections); codeheal's other output
  keys (attempts, history) are dropped, and the parent's context object is passed through.
- ``build_wrapper_parent``: a node function calls codeheal, mapping the parent's own keys
  (plan, checks, solution, outcome, lessons) in and out and passing an explicit ``context=``.

Both keep codeheal's reflection memory in the parent's state, so the parent's checkpointer
holds it and the next run on the same thread starts from it.

Run it (the embedded local model; the first run assembles it, later runs start in seconds):

    python examples/embed_parent.py
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from typing_extensions import NotRequired, TypedDict

from codeheal import Context, build_graph


class Ticket(TypedDict):
    """What the parent is asked to do: a request in prose and the checks it must pass."""

    request: str
    checks: str


class SharedKeysState(TypedDict):
    """Direct embedding: the parent uses codeheal's key names for what it shares with it."""

    request: str
    checks: str
    task: NotRequired[str]
    tests: NotRequired[str]
    code: NotRequired[str]
    status: NotRequired[str]
    reflections: NotRequired[list[str]]
    """No reducer: codeheal takes the memory in and returns all of it, old reflections first."""
    summary: NotRequired[str]


class AgentState(TypedDict):
    """Wrapper embedding: the parent keeps its own names; the wrapper node maps them."""

    request: str
    checks: str
    plan: NotRequired[str]
    solution: NotRequired[str]
    outcome: NotRequired[str]
    lessons: NotRequired[list[str]]
    summary: NotRequired[str]


@dataclass(kw_only=True)
class AgentContext:
    """The parent's own per-run settings; codeheal's travel inside them."""

    codeheal: Context = field(
        # self_heal: the default policy (adaptive) writes a reflection only after some kinds of failure.
        default_factory=lambda: Context(policy="self_heal"),
        metadata={"description": "Settings of the embedded codeheal run."},
    )


def plan(request: str) -> str:
    """The task codeheal is given: the request, with the parent's house rules."""
    return f"{request.strip()}\nUse only the standard library and add a docstring."


def summarise(outcome: str, code: str, lessons: list[str]) -> str:
    """A short report of what codeheal did, for the parent's user."""
    lines = [f"codeheal {outcome}: {len(code.splitlines())} lines of code"]
    lines += [f"lesson: {lesson}" for lesson in lessons]
    return "\n".join(lines)


def build_direct_parent(
    llm: BaseChatModel | None = None, checkpointer: BaseCheckpointSaver | None = None
) -> CompiledStateGraph:
    """plan -> codeheal (the compiled graph itself, as a node) -> summarise."""
    codeheal = build_graph(llm=llm).compile(name="codeheal")  # no checkpointer: inherits ours

    def plan_node(state: SharedKeysState) -> dict:
        return {"task": plan(state["request"]), "tests": state["checks"]}

    def summarise_node(state: SharedKeysState) -> dict:
        return {"summary": summarise(state["status"], state["code"], state.get("reflections", []))}

    parent = StateGraph(SharedKeysState, context_schema=Context)
    parent.add_node("plan", plan_node)
    parent.add_node("codeheal", codeheal)
    parent.add_node("summarise", summarise_node)
    parent.add_edge(START, "plan")
    parent.add_edge("plan", "codeheal")
    parent.add_edge("codeheal", "summarise")
    parent.add_edge("summarise", END)
    return parent.compile(checkpointer=checkpointer, name="direct_parent")


def build_wrapper_parent(
    llm: BaseChatModel | None = None, checkpointer: BaseCheckpointSaver | None = None
) -> CompiledStateGraph:
    """plan -> write_code (a function that calls codeheal with mapped keys) -> summarise."""
    codeheal = build_graph(llm=llm).compile(name="codeheal")

    def plan_node(state: AgentState) -> dict:
        return {"plan": plan(state["request"])}

    def write_code(state: AgentState, runtime: Runtime[AgentContext]) -> dict:
        settings = (runtime.context or AgentContext()).codeheal
        result = codeheal.invoke(
            {"task": state["plan"], "tests": state["checks"], "reflections": state.get("lessons", [])},
            context=settings,
        )
        return {"solution": result["code"], "outcome": result["status"], "lessons": result["reflections"]}

    def summarise_node(state: AgentState) -> dict:
        return {"summary": summarise(state["outcome"], state["solution"], state.get("lessons", []))}

    parent = StateGraph(AgentState, context_schema=AgentContext)
    parent.add_node("plan", plan_node)
    parent.add_node("write_code", write_code)
    parent.add_node("summarise", summarise_node)
    parent.add_edge(START, "plan")
    parent.add_edge("plan", "write_code")
    parent.add_edge("write_code", "summarise")
    parent.add_edge("summarise", END)
    return parent.compile(checkpointer=checkpointer, name="wrapper_parent")


TICKET = Ticket(
    request="Write `slugify(title)`: lower-case the title, turn every run of characters that "
    "are not letters or digits into one hyphen, and strip hyphens from both ends.",
    checks=(
        'assert slugify("Hello, World!") == "hello-world"\n'
        'assert slugify("  LangGraph  1.2 ") == "langgraph-1-2"\n'
        'assert slugify("--a--b--") == "a-b"\n'
    ),
)


def main() -> None:
    """Run both parents on the same ticket with the embedded model, showing codeheal's inner
    steps as the parent streams them."""
    settings = Context(model="local", max_attempts=3)
    runs = (
        ("direct", build_direct_parent(checkpointer=InMemorySaver()), settings),
        ("wrapper", build_wrapper_parent(checkpointer=InMemorySaver()), AgentContext(codeheal=settings)),
    )
    for name, parent, context in runs:
        config = {"configurable": {"thread_id": name}}
        print(f"== {name} embedding")
        for namespace, update in parent.stream(
            TICKET, config, context=context, stream_mode="updates", subgraphs=True
        ):
            where = " > ".join(part.split(":")[0] for part in namespace) or "parent"
            print(f"  [{where}] {', '.join(update)}")
        print(parent.get_state(config).values["summary"])


if __name__ == "__main__":
    main()
