"""Fixtures for tests that run against the fake E2B server: the server, and environments that
point the unmodified SDK at it (used by tests/sandboxes and tests/security)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_server import API_KEY, DEBUG_SANDBOX_ID, FakeE2B, FakeServer

E2B_VARIABLES = ("E2B_API_KEY", "E2B_ACCESS_TOKEN", "E2B_DOMAIN", "E2B_DEBUG", "E2B_API_URL", "E2B_SANDBOX_URL")


@pytest.fixture(scope="session")
def server() -> Iterator[FakeServer]:
    started = FakeServer().start()
    yield started
    started.stop()


@pytest.fixture
def fake(server: FakeServer) -> FakeE2B:
    """The fake with a clean record and no scripted faults."""
    server.fake.reset()
    return server.fake


@pytest.fixture
def api_env(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """The SDK's own variables set as for the cloud, with the API and sandbox URLs on the fake:
    sandboxes are really created and killed through the control-plane API."""
    _clear(monkeypatch)
    monkeypatch.setenv("E2B_API_KEY", API_KEY)
    monkeypatch.setenv("E2B_API_URL", server.url)
    monkeypatch.setenv("E2B_SANDBOX_URL", server.url)
    return server.url


@pytest.fixture
def debug_env(server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """SDK debug mode: no API key and no control plane; traffic goes to E2B_SANDBOX_URL."""
    _clear(monkeypatch)
    monkeypatch.setenv("E2B_DEBUG", "true")
    monkeypatch.setenv("E2B_SANDBOX_URL", server.url)
    return DEBUG_SANDBOX_ID


def _clear(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in E2B_VARIABLES:
        monkeypatch.delenv(name, raising=False)
