"""Links resolved before deciding: a link inside the project is judged by its target too, so a
tracked link to a secret-named, git-ignored or skipped file brings nothing of it into the
snapshot (hence the sandbox and the prompt), and the run names it as left out."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from codeheal.forms.project.snapshot import read_project

SECRET = "API_TOKEN=hunter2-codeheal-canary\n"


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(project), "-c", "user.email=a@b", "-c", "user.name=a", *args],
                   check=True, capture_output=True)


def project_with(tmp_path: Path, links: dict[str, str], *, in_git: bool = True) -> Path:
    project = tmp_path / "project"
    (project / ".venv" / "lib").mkdir(parents=True)
    (project / "app.py").write_text("def f():\n    return 1\n")
    for secret in (".env", "id_rsa", "local_settings.py", ".venv/lib/site.py", "notes.pem"):
        (project / secret).write_text(SECRET)
    (project / ".gitignore").write_text("local_settings.py\n.env\n.venv/\n")
    for name, target in links.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, project / name)
    if in_git:
        git(project, "init", "-q")
        git(project, "add", "-f", "app.py", ".gitignore", *links)
        git(project, "commit", "-qm", "start")
    return project


@pytest.mark.parametrize("links", [
    {"config.py": ".env"},                        # a secret's name
    {"settings.py": "local_settings.py"},         # git-ignored
    {"key.txt": "id_rsa"},                        # a key file
    {"cert.py": "notes.pem"},                     # a certificate
    {"a.py": "b.py", "b.py": ".env"},             # a chain of links
    {"pkg/conf.py": "../.env"},                   # from a subfolder
    {"vendored.py": ".venv/lib/site.py"},         # a folder codeheal does not read
])
@pytest.mark.parametrize("in_git", [True, False])
def test_a_link_to_a_file_left_out_is_left_out_too(tmp_path: Path, links: dict[str, str], in_git: bool) -> None:
    project = project_with(tmp_path, links, in_git=in_git)
    if not in_git and "settings.py" in links:
        pytest.skip("git-ignore rules apply in a git work tree only")
    snapshot = read_project(project)
    assert not set(links) & set(snapshot.files), sorted(snapshot.files)
    assert set(links) <= {s.path for s in snapshot.skipped}, snapshot.skipped
    if in_git:  # nothing secret is read at all (outside git, local_settings.py is an ordinary file)
        assert not any(SECRET in text for text in snapshot.files.values()), sorted(snapshot.files)
    assert "app.py" in snapshot.files


def test_a_link_to_an_ordinary_file_is_read(tmp_path: Path) -> None:
    project = project_with(tmp_path, {"alias.py": "app.py"})
    snapshot = read_project(project)
    assert snapshot.files["alias.py"] == snapshot.files["app.py"]
