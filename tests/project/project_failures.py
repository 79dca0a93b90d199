"""Failures of a project's own test suite as the evaluator reports them (CheckFailure records),
for tests of what is built from them. Runs pytest with codeheal's report plugin, changed the
way `codeheal fix` needs it: frames of every file under the workspace, by relative path (the
plugin today keeps only solution.py and test_solution.py, by file name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import codeheal.nodes
from codeheal.nodes.feedback import run_feedback
from codeheal.sandboxes.base import RunResult
from codeheal.state import Feedback

OWN_FILES_FILTER = '        name = path.rsplit("/", 1)[-1]\n        if name not in OWN_FILES:\n            continue\n'
PROJECT_FILTER = (
    '        if not path.startswith(WORKSPACE):\n            continue\n'
    '        name = path[len(WORKSPACE):]\n'
)
PLUGIN = (Path(codeheal.nodes.__file__).parent / "pytest_plugin.py").read_text(encoding="utf-8")
assert OWN_FILES_FILTER in PLUGIN, "the plugin's frame filter changed: update this helper"
PROJECT_PLUGIN = PLUGIN.replace(OWN_FILES_FILTER, PROJECT_FILTER) + '\nimport os\nWORKSPACE = os.getcwd() + "/"\n'


def run_project_tests(files: Mapping[str, str], workspace: Path, test_args: list[str], timeout_s: float = 60) -> Feedback:
    """Write `files` into `workspace`, run `python -m pytest *test_args` there with the
    project-aware report plugin, and return the Feedback."""
    for name, text in {**files, "codeheal_report.py": PROJECT_PLUGIN}.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text, encoding="utf-8")
    read_end, write_end = os.pipe()
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "codeheal_report", "-p", "no:cacheprovider", "-q", *test_args],
            cwd=workspace, capture_output=True, text=True, timeout=timeout_s, pass_fds=(write_end,),
            env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PATH": "/usr/bin:/bin", "CODEHEAL_REPORT_FD": str(write_end)},
        )
        exit_code, stdout, stderr = run.returncode, run.stdout, run.stderr
    except subprocess.TimeoutExpired:
        exit_code, stdout, stderr = None, "", ""
    os.close(write_end)
    with os.fdopen(read_end, encoding="utf-8") as channel:
        report = channel.read()
    result = RunResult(
        exit_code=exit_code, stdout=stdout, stderr=stderr, timed_out=exit_code is None,
        output_truncated=False, seconds=0.0, isolation="none", report=report,
    )
    # The project's own test names are whatever it reported: nothing to check them against.
    reported = {json.loads(line).get("test", "").split("::")[-1].split("[")[0] for line in report.splitlines() if line}
    return run_feedback(result, reported - {""})
