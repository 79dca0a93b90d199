"""Every environment variable codeheal reads on the host, read here and nowhere else (the E2B
SDK reads its own E2B_* variables; inside the sandbox the report plugin reads its channel).
Each is read when asked, so a change of the environment applies to the next run."""

from __future__ import annotations

import os

OPENAI_BASE_URL = "OPENAI_BASE_URL"
OPENAI_API_KEY = "OPENAI_API_KEY"
SETTING_PREFIX = "CODEHEAL_"
"""CODEHEAL_<SETTING>: the environment's layer of a run's settings (context.resolve), for each
setting by its flat name (context.SETTINGS), e.g. CODEHEAL_MAX_ATTEMPTS, CODEHEAL_RETRY_SAMPLES."""
CHECKPOINTER = "CODEHEAL_CHECKPOINTER"
LOCAL_SLOTS = "CODEHEAL_LOCAL_SLOTS"
LOCAL_THREADS = "CODEHEAL_LOCAL_THREADS"
LOCAL_SPECULATIVE = "CODEHEAL_LOCAL_SPECULATIVE"
LOCAL_DRAFT = "CODEHEAL_LOCAL_DRAFT"
LOCAL_DRAFT_MAX = "CODEHEAL_LOCAL_DRAFT_MAX"
VIRTUAL_ENV = "VIRTUAL_ENV"
"""The active virtualenv: `solve` runs the tests on it when it is not codeheal's own."""
LOCAL_SERVER = "CODEHEAL_LOCAL_SERVER"
"""Where the embedded model is served: "resident" (default) or "in-process"."""
LOCAL_IDLE = "CODEHEAL_LOCAL_IDLE"
"""Seconds a resident model server waits unused before it exits."""
E2B_SANDBOX_URL = "E2B_SANDBOX_URL"
"""The E2B SDK's debug-mode sandbox address (the SDK itself reads it only for its own calls)."""
PRE_COMMIT = "PRE_COMMIT"
"""Set to 1 by pre-commit for the hooks it runs (codeheal/precommit.py)."""


def active_virtualenv() -> str | None:
    """The active virtualenv's folder, if any."""
    return os.environ.get(VIRTUAL_ENV)


def openai_base_url() -> str | None:
    """The OpenAI-compatible endpoint a model without its own base_url is asked at."""
    return os.environ.get(OPENAI_BASE_URL)


def openai_api_key() -> str | None:
    """The key sent to OpenAI or to the endpoint at base_url."""
    return os.environ.get(OPENAI_API_KEY)


def setting(name: str) -> str | None:
    """The text of CODEHEAL_<NAME> for the setting of flat name `name`, or None when it is not set."""
    return os.environ.get(SETTING_PREFIX + name.upper())


def read(name: str) -> str | None:
    """The text of one of the variables named above, or None when it is not set."""
    return os.environ.get(name)
