"""A benchmark's finished results: one JSON line per result, appended as each one finishes, so an
interrupted run resumes where it stopped. Every benchmark keeps its records in one of these."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

from rich.console import Console
from rich.markup import escape

from codeheal.errors import CodehealError, ConfigError

R = TypeVar("R", bound=Mapping[str, Any])
T = TypeVar("T")
ADDED_SETTINGS: dict[str, object] = {"hedge": False, "task_examples": True, "seed": None}
"""Settings added after records were written, each with the value under which the code runs as
it did before the setting existed: a record without one ran so (task_examples: the benchmarks'
visible tests are the prompts' examples, so it adds no check to them; seed: unseeded)."""


class Records(Generic[R]):
    """The records in a JSONL file, by key. Reading refuses a record whose settings (its
    "context") differ from those `settings_of` says the record's run has now: mixing settings
    would make the results meaningless. A line that does not parse (the last one of a run
    killed mid-write) is skipped."""

    def __init__(self, path: Path, key: Callable[[R], Hashable], settings_of: Callable[[R], dict]) -> None:
        self.path = path
        self._key = key
        self._by_key: dict[Hashable, R] = {}
        if not path.exists():
            return
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            # As JSON writes them (a tuple becomes a list), the settings the record would have now.
            wanted = json.loads(json.dumps(settings_of(record)))
            written = {**{k: v for k, v in ADDED_SETTINGS.items() if k in wanted}, **record.get("context", {})}
            if written != wanted:
                raise ConfigError(f"{path} line {number} ({_name(record)}) was written with other settings: "
                                  f"{_differences(written, wanted)}; pass --out with another directory, or "
                                  "delete the file to start over")
            self._by_key[key(record)] = record

    def __contains__(self, key: Hashable) -> bool:
        return key in self._by_key

    def __getitem__(self, key: Hashable) -> R:
        return self._by_key[key]

    def __iter__(self) -> Iterator[R]:
        return iter(self._by_key.values())

    def __len__(self) -> int:
        return len(self._by_key)

    def get(self, key: Hashable) -> R | None:
        """The record under `key`, or None."""
        return self._by_key.get(key)

    def add(self, record: R) -> None:
        """Keep a finished record and append it to the file as one line, flushed at once."""
        self._by_key[self._key(record)] = record
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
            out.flush()


def record_each(
    items: Sequence[T], records: Records[R], *, name: Callable[[T], str], heal: Callable[[T], R],
    outcome: Callable[[R], str], console: Console,
) -> None:
    """Heal each item whose name has no record yet, one after another, adding each record as it
    finishes and printing its `outcome`. An infrastructure error (CodehealError) is not a
    result: the item is left unrecorded, so a rerun retries it."""
    for item in items:
        key = name(item)
        if key in records:
            continue
        console.print(f"[dim]{key} ...[/dim]")
        try:
            record = heal(item)
        except CodehealError as exc:
            console.print(f"[yellow]{key}: {type(exc).__name__}: {escape(str(exc))}[/yellow]")
            continue
        records.add(record)
        console.print(f"{key}: {outcome(record)}")


def _name(record: Mapping[str, Any]) -> str:
    return " ".join(str(record[k]) for k in ("condition", "task_id", "program") if k in record)


def _differences(written: dict, wanted: dict) -> str:
    keys = sorted(k for k in wanted.keys() | written.keys() if written.get(k) != wanted.get(k))
    return ", ".join(f"{k} {written.get(k, '(unrecorded)')!r} (now {wanted.get(k, '(none)')!r})" for k in keys)
