"""What a run's tokens would cost at a published API price list: prompt tokens the server read,
prompt tokens it reused from its cache (billed as cached input), and completion tokens."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

PRICE_LIST = {
    "name": "gpt-4o-mini",
    "source": "https://openai.com/api/pricing (standard tier, USD per million tokens)",
    "input": 0.15,
    "cached_input": 0.075,
    "output": 0.60,
}
"""The price list the HumanEval report prices runs at."""


def attempt_price(attempt: Mapping[str, Any], prices: Mapping[str, Any] = PRICE_LIST) -> float:
    """An attempt's price in USD: its prompt tokens reused from the server's cache at the cached
    input price, the rest of its prompt tokens at the input price, its completion at the output
    price. An attempt recorded without the split pays its whole prompt at the input price."""
    reused = (attempt.get("timings") or {}).get("prompt_reused", 0)
    prompt = attempt.get("prompt_tokens", 0)
    fresh = max(prompt - reused, 0)
    return (fresh * prices["input"] + min(reused, prompt) * prices["cached_input"]
            + attempt.get("completion_tokens", 0) * prices["output"]) / 1_000_000


def attempt_seconds(attempt: Mapping[str, Any]) -> float:
    """An attempt's wall seconds as the embedded model spends them: the model's, the sandbox's."""
    return attempt.get("seconds_model", 0.0) + attempt.get("seconds_sandbox", 0.0)
