"""The diff of a change, and writing it back into a project."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from codeheal.errors import InputError
from codeheal.forms.project.diff import DirtyTreeError, unified_diff, write_changes
from codeheal_bench.diffs import whitespace_only_hunks
from codeheal.forms.project.snapshot import read_project

SHOP = Path(__file__).with_name("fixtures") / "shop"
GIT = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]


def test_unified_diff_has_git_paths_and_counts_lines() -> None:
    original = {"m.py": "a\nb\nc\n", "n.py": "same\n"}
    diff = unified_diff(original, {"m.py": "a\nB\nc\n", "n.py": "same\n"})
    assert diff.files == ["m.py"]
    assert diff.changed_lines == 2
    assert diff.text == "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"


def test_unified_diff_marks_a_missing_final_newline() -> None:
    diff = unified_diff({"m.py": "a"}, {"m.py": "b"})
    assert diff.text.endswith("-a\n\\ No newline at end of file\n+b\n\\ No newline at end of file\n")


def test_whitespace_only_hunks_are_counted_and_real_ones_are_not() -> None:
    original = {"m.py": "def f(x):\n    y = x+1\n\n    return y\n" + "# filler\n" * 8 + "LIMIT = 3\n"}
    respaced = original["m.py"].replace("x+1\n\n", "x + 1\n")
    assert whitespace_only_hunks(unified_diff(original, {"m.py": respaced}).text) == 1
    both = respaced.replace("LIMIT = 3", "LIMIT = 4")
    diff = unified_diff(original, {"m.py": both})
    assert diff.text.count("@@ -") == 2 and whitespace_only_hunks(diff.text) == 1
    assert whitespace_only_hunks(unified_diff(original, {"m.py": original["m.py"].replace("x+1", "x+2")}).text) == 0
    assert whitespace_only_hunks(unified_diff({"m.py": "a"}, {"m.py": "a\n"}).text) == 1
    # QuixBugs rpn_eval's fix moves a line: the same lines removed and added, in another order
    swapped = {"m.py": "def f(s):\n    a = s.pop()\n    b = s.pop()\n    return a - b\n"}
    moved = unified_diff(swapped, {"m.py": "def f(s):\n    b = s.pop()\n    a = s.pop()\n    return a - b\n"})
    assert whitespace_only_hunks(moved.text) == 0


def test_the_diff_applies_with_git_apply(tmp_path: Path) -> None:
    project = tmp_path / "shop"
    shutil.copytree(SHOP, project)
    files = read_project(project).files
    changed = {"shop/pricing.py": files["shop/pricing.py"].replace("quantity > threshold", "quantity >= threshold")}
    patch = tmp_path / "fix.patch"
    patch.write_text(unified_diff(files, changed).text)
    subprocess.run(["git", "apply", str(patch)], cwd=project, check=True)
    assert (project / "shop" / "pricing.py").read_text() == changed["shop/pricing.py"]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    project = tmp_path / "repo" / "proj"
    project.mkdir(parents=True)
    (project / "m.py").write_text("x = 1\n")
    (project / "other.py").write_text("y = 1\n")
    (project / "m.py").chmod(0o640)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path / "repo", check=True)
    subprocess.run([*GIT, "add", "."], cwd=tmp_path / "repo", check=True)
    subprocess.run([*GIT, "commit", "-qm", "start"], cwd=tmp_path / "repo", check=True)
    return project


def test_writes_atomically_and_keeps_permissions(repo: Path) -> None:
    (repo / "other.py").write_text("y = 2\n")  # work in progress elsewhere is no reason to refuse
    written = write_changes(repo, {"m.py": "x = 2\n"}, originals={"m.py": "x = 1\n"})
    assert written == [repo.resolve() / "m.py"]
    assert (repo / "m.py").read_text() == "x = 2\n"
    assert (repo / "m.py").stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in repo.iterdir()) == ["m.py", "other.py"], "no temporary file left"


def test_refuses_a_dirty_file_unless_forced(repo: Path) -> None:
    (repo / "m.py").write_text("x = 5\n")
    with pytest.raises(DirtyTreeError, match="m.py has uncommitted changes; nothing was written.*--force"):
        write_changes(repo, {"m.py": "x = 2\n"}, originals={"m.py": "x = 5\n"})
    write_changes(repo, {"m.py": "x = 2\n"}, originals={"m.py": "x = 5\n"}, force=True)
    assert (repo / "m.py").read_text() == "x = 2\n"


def test_refuses_a_file_changed_since_the_snapshot_even_when_forced(repo: Path) -> None:
    with pytest.raises(DirtyTreeError, match="m.py changed since codeheal read the project"):
        write_changes(repo, {"m.py": "x = 2\n"}, originals={"m.py": "x = 0\n"}, force=True)
    assert (repo / "m.py").read_text() == "x = 1\n"


def test_outside_git_only_the_stale_check_applies(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("x = 1\n")
    write_changes(tmp_path, {"m.py": "x = 2\n"}, originals={"m.py": "x = 1\n"})
    assert (tmp_path / "m.py").read_text() == "x = 2\n"


def test_never_writes_through_a_link(tmp_path: Path) -> None:
    (tmp_path / "real.py").write_text("x = 1\n")
    (tmp_path / "alias.py").symlink_to(tmp_path / "real.py")
    with pytest.raises(InputError, match="alias.py: a link"):
        write_changes(tmp_path, {"alias.py": "x = 2\n"}, originals={"alias.py": "x = 1\n"})


def test_an_added_line_that_starts_with_two_pluses_stays_in_its_hunks_annotation() -> None:
    from codeheal.forms.project.annotations import annotations

    before = {"m.py": 'NOTE = """\nold\n"""\n\n\ndef f():\n    return 1\n'}
    after = {"m.py": 'NOTE = """\n++ new\n-- gone\n"""\n\n\ndef f():\n    return 2\n'}
    diff = unified_diff(before, after).text
    assert "\n+++ new\n" in diff and "\n--- gone\n" not in diff.split("@@", 1)[0]
    commands = annotations(diff)
    assert len(commands) == 1 and commands[0].startswith("::error file=m.py,line=2,endLine=7,"), commands
    assert "%0A+++ new%0A+-- gone%0A" in commands[0] and commands[0].endswith("+    return 2")
