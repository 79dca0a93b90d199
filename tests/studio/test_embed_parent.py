"""examples/embed_parent.py: codeheal inside a parent agent, added directly and through a
wrapper node; inner steps stream with subgraphs=True and the memory lives on the parent."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, convert_to_openai_messages
from langgraph.checkpoint.memory import InMemorySaver
from scripted_openai import is_actor

from codeheal import Context

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "embed_parent.py"
WRONG = AIMessage("```python\ndef slugify(title):\n    return title.lower()\n```")
RIGHT = AIMessage(
    "```python\nimport re\n\n\ndef slugify(title):\n    \"\"\"A URL slug.\"\"\"\n"
    "    return re.sub(r\"[^a-z0-9]+\", \"-\", title.lower()).strip(\"-\")\n```"
)
FIRST_LESSON, SECOND_LESSON = "Collapse non-alphanumeric runs into one hyphen.", "Strip the ends too."


def _load_example():
    spec = importlib.util.spec_from_file_location("embed_parent", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


example = _load_example()


class ActorPrompts(BaseCallbackHandler):
    """Records the user prompt of every actor call."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def on_chat_model_start(self, serialized, messages, **kwargs) -> None:
        if is_actor(convert_to_openai_messages(messages[0])):
            self.prompts.append(messages[0][-1].content)


PATTERNS = {
    "direct": (example.build_direct_parent, Context(policy="self_heal", max_attempts=3), "codeheal", "reflections"),
    "wrapper": (
        example.build_wrapper_parent, example.AgentContext(codeheal=Context(policy="self_heal", max_attempts=3)),
        "write_code", "lessons",
    ),
}


@pytest.mark.parametrize("pattern", PATTERNS)
def test_parent_streams_inner_nodes_and_keeps_the_memory_on_its_thread(pattern):
    build, context, node, memory_key = PATTERNS[pattern]
    replies = [WRONG, AIMessage(FIRST_LESSON), RIGHT, WRONG, AIMessage(SECOND_LESSON), RIGHT]
    parent = build(llm=GenericFakeChatModel(messages=iter(replies)), checkpointer=InMemorySaver())
    prompts = ActorPrompts()
    config = {"configurable": {"thread_id": pattern}, "callbacks": [prompts]}

    events = list(parent.stream(example.TICKET, config, context=context, stream_mode="updates", subgraphs=True))
    outer = [next(iter(update)) for namespace, update in events if not namespace]
    inner = [(namespace[0].split(":")[0], next(iter(update))) for namespace, update in events
             if namespace and next(iter(update)) != "attempt"]  # the attempt's own steps stream below it
    assert outer == ["plan", node, "summarise"]
    assert inner == [(node, step) for step in ["prepare", "actor", "prepare_candidates", "test_candidate", "evaluator", "reflector", "actor", "prepare_candidates", "test_candidate", "evaluator", "finish"]]

    first = parent.get_state(config).values
    assert first[memory_key] == [FIRST_LESSON]
    assert first["summary"].startswith("codeheal passed")
    assert FIRST_LESSON not in prompts.prompts[0] and FIRST_LESSON in prompts.prompts[1]

    second = parent.invoke(example.TICKET, config, context=context)
    assert FIRST_LESSON in prompts.prompts[2]  # the new run starts from the stored reflection
    assert second[memory_key] == [FIRST_LESSON, SECOND_LESSON]
    assert f"lesson: {SECOND_LESSON}" in second["summary"]


def test_direct_embedding_drops_the_output_keys_the_parent_lacks():
    parent = example.build_direct_parent(llm=GenericFakeChatModel(messages=iter([RIGHT])))
    result = parent.invoke(example.TICKET, context=Context(max_attempts=1))
    assert result["status"] == "passed"
    assert "attempts" not in result and "history" not in result
