"""Failures of a project's own test suite as the evaluator reports them (CheckFailure records),
for tests of what is built from them: the project's files run in the local sandbox with the
report plugin, as `codeheal fix` runs them."""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from codeheal.evaluation.feedback import run_feedback
from codeheal.forms.project.job import project_job
from codeheal.forms.project.task import parse_test_command
from codeheal.sandboxes import LocalSandbox
from codeheal.state import Feedback


def run_project_tests(files: Mapping[str, str], test_args: list[str], timeout_s: float = 60) -> Feedback:
    """Run `python -m pytest *test_args` on `files` in the local sandbox and return the Feedback."""
    command = parse_test_command(shlex.join(["python", "-m", "pytest", *test_args]))
    result = LocalSandbox().run(project_job(files, command, timeout_s))
    return run_feedback(result, None)
