"""Where checkpoints live: a SQLite file (the default) or PostgreSQL, named by one string.

``open_checkpointer("postgresql://user@host/db")`` or ``open_checkpointer("runs.sqlite")``
yields a LangGraph checkpoint saver, set up and ready; ``open_async_checkpointer`` is the
same for ``ainvoke`` / ``astream``. Without a target, ``CODEHEAL_CHECKPOINTER`` is used, else
the SQLite file in the user's data directory.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import platformdirs
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.store.base import BaseStore

from codeheal import environment
from codeheal.errors import CheckpointError, ConfigError

ENV_VAR = environment.CHECKPOINTER
SQLITE_HEADER = b"SQLite format 3\x00"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")
POSTGRES_EXTRA = "a postgresql:// checkpointer needs the postgres extra: pip install 'codeheal[postgres]'"

_set_up: set[str] = set()
"""Postgres URLs whose tables this process has already created or migrated."""


def checkpoint_path() -> Path:
    """The default checkpoint database, in the user's data directory (made 0700)."""
    directory = Path(platformdirs.user_data_dir("codeheal"))
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    return directory / "checkpoints.sqlite"


def resolve_target(target: str | Path | None = None) -> str:
    """The checkpointer a command uses: `target`, else $CODEHEAL_CHECKPOINTER, else the
    default SQLite file."""
    return str(target or environment.read(ENV_VAR) or checkpoint_path())


def is_postgres(target: str) -> bool:
    return target.startswith(POSTGRES_SCHEMES)


def describe(target: str) -> str:
    """The target as it may be printed: a Postgres URL without its password."""
    if not is_postgres(target):
        return target
    parts = urlsplit(target)
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{user}{parts.hostname or ''}{port}{parts.path}"


@contextmanager
def open_checkpointer(
    target: str | Path | None = None, *, must_exist: bool = False
) -> Iterator[BaseCheckpointSaver]:
    """A checkpoint saver for `target` (a postgresql:// URL or a SQLite file path).

    `must_exist`: refuse a SQLite file that is not there yet (continuing or inspecting a
    thread must never silently start from an empty database). A file that is not a
    checkpoint database, a corrupted one and an unreachable server raise CheckpointError."""
    target = resolve_target(target)
    if is_postgres(target):
        with _postgres(target) as saver:
            yield saver
        return
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = _checked_sqlite_path(target, must_exist)
    with _sqlite_errors(path), SqliteSaver.from_conn_string(str(path)) as saver:
        saver.setup()
        yield saver


@contextmanager
def open_store(target: str | Path | None = None) -> Iterator[BaseStore]:
    """The LangGraph store beside the checkpoints of `target` (the same SQLite file or
    Postgres database): where codeheal.learning keeps what pays per model across runs. Pass it
    to `graph.compile(store=...)` with the checkpointer; open it after the checkpointer (which
    checks the file before any connection holds it)."""
    target = resolve_target(target)
    if is_postgres(target):
        try:
            import psycopg
            from langgraph.store.postgres import PostgresStore
        except ImportError:
            raise ConfigError(POSTGRES_EXTRA) from None
        try:
            with PostgresStore.from_conn_string(target) as store:
                store.setup()
                yield store
        except psycopg.OperationalError as exc:
            raise _unreachable(target, exc) from exc
        return
    from langgraph.store.sqlite import SqliteStore

    # Opened beside a checkpointer, whose connection holds the file's locks: reading the header
    # through a file of our own would drop them (closing any descriptor of a file drops the
    # process's POSIX locks on it), and another process could then take the WAL away. SQLite
    # itself refuses a file that is no database.
    path = _checked_sqlite_path(target, must_exist=False, read_header=False)
    with _sqlite_errors(path), SqliteStore.from_conn_string(str(path)) as store:
        store.setup()
        yield store


@asynccontextmanager
async def open_async_checkpointer(
    target: str | Path | None = None, *, must_exist: bool = False
) -> AsyncIterator[BaseCheckpointSaver]:
    """The async twin of `open_checkpointer`, for `graph.ainvoke` and `graph.astream`."""
    target = resolve_target(target)
    if is_postgres(target):
        async with _async_postgres(target) as saver:
            yield saver
        return
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    path = _checked_sqlite_path(target, must_exist)
    with _sqlite_errors(path):
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            await saver.setup()
            yield saver


def _checked_sqlite_path(target: str, must_exist: bool, *, read_header: bool = True) -> Path:
    path = Path(target).expanduser()
    if not path.exists():
        if must_exist:
            raise CheckpointError(
                f"no checkpoint database at {path}: nothing has been run with it yet. Check "
                f"--checkpointer / ${ENV_VAR}, or start a run with `codeheal solve`"
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        _create_private(path)
        return path
    if path.is_dir():
        raise CheckpointError(f"{path} is a directory, not a checkpoint database: name a file")
    if not read_header:
        return path
    with path.open("rb") as handle:
        header = handle.read(len(SQLITE_HEADER))
    if header and header != SQLITE_HEADER:
        raise CheckpointError(
            f"{path} is not a SQLite database, so it holds no checkpoints: move it aside "
            "or point --checkpointer elsewhere (codeheal will not overwrite it)"
        )
    if must_exist and not _has_checkpoint_tables(path):
        raise CheckpointError(f"{path} is a SQLite database but holds no codeheal checkpoints")
    return path


def _create_private(path: Path) -> None:
    """An empty database file only its owner can read: checkpoints hold the project's code and
    the run's prompts. SQLite gives its journal and WAL files the database file's mode."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        pass  # made by a concurrent run in the meantime
    except OSError as exc:
        raise CheckpointError(f"cannot create the checkpoint database {path}: {exc.strerror}") from None


def _has_checkpoint_tables(path: Path) -> bool:
    with _sqlite_errors(path):
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = connection.execute(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'checkpoints'"
            ).fetchone()
        finally:
            connection.close()
    return row[0] == 1


@contextmanager
def _sqlite_errors(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.DatabaseError as exc:
        raise CheckpointError(
            f"the checkpoint database {path} is unreadable ({exc}): it is corrupted or not a "
            "checkpoint database. Move it aside to start afresh; its threads cannot be resumed"
        ) from exc


@contextmanager
def _postgres(url: str) -> Iterator[BaseCheckpointSaver]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver
    except ImportError:
        raise ConfigError(POSTGRES_EXTRA) from None
    try:
        with PostgresSaver.from_conn_string(url) as saver:
            if url not in _set_up:
                saver.setup()
                _set_up.add(url)
            yield saver
    except psycopg.OperationalError as exc:
        raise _unreachable(url, exc) from exc


@asynccontextmanager
async def _async_postgres(url: str) -> AsyncIterator[BaseCheckpointSaver]:
    try:
        import psycopg
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    except ImportError:
        raise ConfigError(POSTGRES_EXTRA) from None
    try:
        async with AsyncPostgresSaver.from_conn_string(url) as saver:
            if url not in _set_up:
                await saver.setup()
                _set_up.add(url)
            yield saver
    except psycopg.OperationalError as exc:
        raise _unreachable(url, exc) from exc


def _unreachable(url: str, exc: Exception) -> CheckpointError:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return CheckpointError(
        f"cannot use the Postgres checkpointer at {describe(url)}: {reason}. Check the URL "
        "and that the server is running"
    )
