"""The pre-commit hook's one rule of its own: while pre-commit runs it, a change that is staged
counts as committed for `--apply`'s clean-tree rule, so the hook may write into the files being
committed (as a formatter does) and fail, for the user to stage the fix.

pre-commit stashes the unstaged changes before it runs a hook, so every uncommitted change of a
tracked file is then staged; where it did not (`pre-commit run --all-files`), or outside a hook,
the rule stays as it is: a file with uncommitted changes is not written."""

from __future__ import annotations

import subprocess
from pathlib import Path

from codeheal import environment


def staged_counts_as_committed(project: Path) -> bool:
    """Whether `codeheal fix --apply` may write over the staged changes in `project`: it runs as
    a pre-commit hook, and no tracked file has a change that is not staged."""
    if environment.read(environment.PRE_COMMIT) != "1":
        return False
    unstaged = subprocess.run(["git", "diff", "--quiet", "--no-ext-diff", "--", "."], cwd=project,
                              capture_output=True, check=False)
    return unstaged.returncode == 0
