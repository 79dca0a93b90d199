"""Test doubles shared by the loop tests: a scripted chat model that records its prompts,
and a sandbox wrapper that counts the jobs it runs (it still runs them for real).
A module of its own, not conftest.py: tests/ holds more than one conftest module."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from codeheal.sandboxes import LocalSandbox
from codeheal.sandboxes.base import Job, RunResult, SyncFace

SHOP = Path(__file__).parents[1] / "project" / "fixtures" / "shop"
"""The project form's fixture: a shop whose bulk_discount misses each tier's threshold."""
SHOP_FIXED = '''The tiers start at their threshold:

```python
# shop/pricing.py
def bulk_discount(quantity: int) -> int:
    """Percent off for buying `quantity` of one item."""
    for threshold, percent in DISCOUNT_TIERS:
        if quantity >= threshold:
            return percent
    return 0
```
'''
"""A reply that heals SHOP: bulk_discount compares with >=."""


class ScriptedModel(GenericFakeChatModel):
    """GenericFakeChatModel that also keeps every prompt it was sent, in call order."""

    calls: list[list[BaseMessage]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def prompt(self, index: int) -> str:
        """The text of every message of call `index`, joined."""
        return "\n".join(str(m.content) for m in self.calls[index])


def node_updates(chunks: Iterable[tuple[tuple[str, ...], dict]]) -> list[tuple[str, dict]]:
    """The (node, update) pairs of `graph.stream(..., stream_mode="updates", subgraphs=True)`
    in order: the run's nodes and each attempt's own steps (the run's `attempt` update, which
    hands back what those steps did, left out)."""
    return [(node, update or {}) for _, chunk in chunks for node, update in chunk.items() if node != "attempt"]


def scripted(*replies: str) -> ScriptedModel:
    """A model that answers each call with the next reply."""
    return ScriptedModel(messages=iter(replies))


def rewritten(code: str, take: int = 1) -> str:
    """The same code written out again with a harmless statement added: it fails just as
    `code` does, yet is no repeat of it (a retry that repeats failed code is drawn again)."""
    return f"{code.rstrip()}\n\n\nTAKE = {take}\n"


def fenced(code: str) -> str:
    """A reply the way a model writes it: prose around a ```python block."""
    return f"Here is the solution:\n\n```python\n{code.strip()}\n```\n\nHope this helps."


class CountingSandbox(SyncFace):
    """A real LocalSandbox that records the jobs it is given and what they gave back."""

    def __init__(self) -> None:
        self.inner = LocalSandbox()
        self.jobs: list[Job] = []
        self.results: list[RunResult] = []

    async def arun(self, job: Job) -> RunResult:
        self.jobs.append(job)
        result = await self.inner.arun(job)
        self.results.append(result)
        return result


ADD_TESTS = "assert add(2, 3) == 5\nassert add(-1, 1) == 0\nassert add(0, 0) == 0\n"
GOOD_ADD = "def add(a, b):\n    return a + b\n"
BAD_ADD = "def add(a, b):\n    return a - b\n"
FIZZ_TESTS = "assert fizz(3) == 'Fizz'\nassert fizz(15) == 'FizzBuzz'\n"
"""The demo's shape: 15 is a multiple of 3 too, so a fizz that forgets 15 returns 'Fizz'."""
FIZZ_BAD = "def fizz(n):\n    return 'Fizz' if n % 3 == 0 else str(n)\n"
FIZZ_GOOD = ("def fizz(n):\n    if n % 15 == 0:\n        return 'FizzBuzz'\n"
             "    return 'Fizz' if n % 3 == 0 else str(n)\n")


class SlowClockSandbox(CountingSandbox):
    """A real local sandbox on a clock of its own (`clock[0]`, what a test patches in as rules'
    time.time()) that moves `step_s` on with each job: the run's time is spent by its test runs
    alone, whatever the machine."""

    def __init__(self, clock: list[float], step_s: float) -> None:
        super().__init__()
        self.clock = clock
        self.step_s = step_s

    async def arun(self, job: Job) -> RunResult:
        result = await super().arun(job)
        self.clock[0] += self.step_s
        return result
