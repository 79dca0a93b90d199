"""Fixtures for the loop tests."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from doubles import CountingSandbox

from codeheal.learning import forget

# A run started as a background job without job control inherits SIGINT ignored, and so would
# every CLI process a test starts (Python keeps an inherited SIG_IGN): the interrupt tests would
# send a signal nothing hears. Ctrl-C is never ignored for a user, so the suite restores it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

SLOW_FILES = Path(__file__).with_name("slow_files.txt")
"""The test files a full run measured slow (each over SLOW_FILE_SECONDS in all, or marked
`model`): `pytest -m "not slow"` leaves them out, the fast subset a developer runs while
working. Measured again with `python tests/slow_files.py JUNIT_XML` after a full run with
`--junitxml JUNIT_XML`."""


ROOT = Path(__file__).resolve().parent.parent


def slow_files() -> set[str]:
    return set(SLOW_FILES.read_text(encoding="utf-8").split()) if SLOW_FILES.is_file() else set()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`-m "not slow"` does not even import a slow file (collecting them all is most of its time)."""
    if config.getoption("markexpr") == "not slow" and collection_path.is_relative_to(ROOT):
        return collection_path.relative_to(ROOT).as_posix() in slow_files() or None
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that run the real model, or sit in a file a full run measured slow, are `slow`."""
    slow = slow_files()
    for item in items:
        if item.get_closest_marker("model") or item.path.relative_to(ROOT).as_posix() in slow:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True, scope="session")
def private_model_servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The suite's resident model servers (codeheal.llm.discovery) keep their files in a
    runtime directory of its own, shared by every test and CLI process it starts, and are all
    stopped when it ends: a test run never leaves a server behind, nor uses the user's."""
    from codeheal.llm.discovery import running, stop

    directory = tmp_path_factory.mktemp("runtime")
    directory.chmod(0o700)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_RUNTIME_DIR", str(directory))
        patch.setenv("CODEHEAL_LOCAL_IDLE", "120")  # should the suite be killed before it stops them
        try:
            yield directory
        finally:
            for server in running():
                stop(server)


MECHANICS_POLICY = "self_heal"
"""The policy the scripted tests run: the loop with every node (reflector, fresh start).
Their scripts answer a reflection after each failure; the default policies write none in the
module form (hedged for the embedded models, adaptive after a wrong value). Their own
behaviour is tested in test_policy_presets, and the real-model tests (marker `model`) run the
default."""


@pytest.fixture(autouse=True)
def mechanics_policy(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unless a test runs the real model or is marked `default_policy`, runs (and the CLI
    processes it starts) use the policy a `policy("name")` marker names, else
    MECHANICS_POLICY, as if CODEHEAL_POLICY named it."""
    if request.node.get_closest_marker("model") or request.node.get_closest_marker("default_policy"):
        return
    named = request.node.get_closest_marker("policy")
    monkeypatch.setenv("CODEHEAL_POLICY", named.args[0] if named else MECHANICS_POLICY)


@pytest.fixture(autouse=True)
def fresh_memory_of_what_pays() -> Iterator[None]:
    """Each test starts from the priors: what an earlier test's runs taught the process's
    fallback store (codeheal.learning) is forgotten."""
    forget()
    yield
    forget()


@pytest.fixture
def sandbox() -> CountingSandbox:
    """A real LocalSandbox that records the jobs it runs."""
    return CountingSandbox()
