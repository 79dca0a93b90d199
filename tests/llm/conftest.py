"""Fixtures for the embedded model tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from codeheal.llm.weights import ensure_model


@pytest.fixture(scope="session")
def local_model_path() -> Path:
    """The embedded model's GGUF, assembled into the user cache once per session."""
    return ensure_model()
