"""Fixtures for the loop tests."""

from __future__ import annotations

import pytest
from doubles import CountingSandbox


@pytest.fixture
def sandbox() -> CountingSandbox:
    """A real LocalSandbox that records the jobs it runs."""
    return CountingSandbox()
