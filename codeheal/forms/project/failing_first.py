"""The failing tests first: a project's test command narrowed to the node ids that failed on
the project as it is, so a repair that does not fix them is known without running the rest."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from codeheal.forms.project.edits import paths_named
from codeheal.forms.project.task import TestCommand

VALUE_OPTIONS = frozenset({
    "-c", "-k", "-m", "-p", "-o", "-W", "-n", "--rootdir", "--confcutdir", "--basetemp", "--ignore",
    "--ignore-glob", "--deselect", "--override-ini", "--junitxml", "--log-file", "--import-mode", "--tb",
    "--maxfail", "--durations", "--cov", "--cov-report", "--config-file",
})
"""pytest options whose value is the next word (which may name a file of the project)."""


def failing_first(
    command: TestCommand, failing: Collection[str], ran: Collection[str], files: Mapping[str, str]
) -> TestCommand | None:
    """`command` with its test paths replaced by the `failing` node ids (those of the project
    as it is), or None when that would not run fewer tests than `ran` did, pytest is not
    visible in the command, or a node id's file is not one file of the project (a rootdir
    below the project's root names files relative to it: the tail then settles the path)."""
    if command.pytest_at is None or not failing or set(ran) <= set(failing):
        return None
    ids = []
    for nodeid in sorted(failing):
        path, sep, rest = nodeid.partition("::")
        named = paths_named(path, files)
        if len(named) != 1 or not sep:
            return None
        ids.append(f"{named[0]}::{rest}")
    args = command.pytest_args
    kept = [word for i, word in enumerate(args)
            if (i and args[i - 1] in VALUE_OPTIONS) or not _names_tests(word, files)]
    return TestCommand((*command.argv[: command.pytest_at], *kept, *ids), command.pytest_at)


def _names_tests(word: str, files: Mapping[str, str]) -> bool:
    """Whether a pytest argument names tests by place: a file or folder of the project, or a
    node id in one."""
    if word.startswith("-"):
        return False
    path = word.split("::", 1)[0].removeprefix("./").rstrip("/")
    return path in (".", "") or path in files or any(p.startswith(path + "/") for p in files)
