"""Which workspace paths are the project's tests (codeheal never edits them)."""

from __future__ import annotations

from pathlib import PurePosixPath

TEST_DIRS = frozenset({"tests", "test", "testing"})


def is_test_file(path: str) -> bool:
    """Whether a workspace path is part of the tests: test_*.py, *_test.py, conftest.py, or
    anything under a tests/ (test/, testing/) folder."""
    parts = PurePosixPath(path).parts
    name = parts[-1] if parts else path
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py" or bool(
        TEST_DIRS & set(parts[:-1])
    )
