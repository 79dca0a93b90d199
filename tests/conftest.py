"""Fixtures for the loop tests."""

from __future__ import annotations

import pytest
from doubles import CountingSandbox

MECHANICS_POLICY = "self_heal"
"""The policy the scripted tests run: the loop with every node (reflector, fresh start).
Their scripts answer a reflection after each failure; the default policy (resample) has
none in the module form. Its own behaviour is tested in test_policy_presets, and the
real-model tests (marker `model`) run the default."""


@pytest.fixture(autouse=True)
def mechanics_policy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unless a test runs the real model or is marked `default_policy`, runs (and the CLI
    processes it starts) use MECHANICS_POLICY, as if CODEHEAL_POLICY named it."""
    if request.node.get_closest_marker("model") or request.node.get_closest_marker("default_policy"):
        return
    monkeypatch.setenv("CODEHEAL_POLICY", MECHANICS_POLICY)


@pytest.fixture
def sandbox() -> CountingSandbox:
    """A real LocalSandbox that records the jobs it runs."""
    return CountingSandbox()
