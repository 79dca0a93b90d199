"""Secrets stay home: the snapshot reads what git would list and never a secret, the
project's git configuration runs nothing, and checkpoint databases are private."""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

from codeheal.checkpointers import open_checkpointer
from codeheal.forms.project.snapshot import IGNORED_REASON, SECRET_REASON, read_project

KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"


def git(project: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=project, capture_output=True, check=True)


def secret_project(root: Path) -> Path:
    project = root / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "mod.py").write_text("def f():\n    return 1\n")
    (project / ".env").write_text("OPENAI_API_KEY=sk-live-secret\n")
    (project / ".env.production").write_text("DB_PASSWORD=hunter2\n")
    (project / "id_rsa").write_text(KEY)
    (project / "deploy_notes.txt").write_text("the key:\n" + KEY)
    (project / "pkg" / "server.pem").write_text("cert\n")
    return project


def test_dotenv_files_and_private_keys_are_never_read(tmp_path: Path) -> None:
    snapshot = read_project(secret_project(tmp_path))
    assert sorted(snapshot.files) == ["pkg/mod.py"]
    assert "secret" not in "".join(snapshot.files.values())
    reasons = {s.path: s.reason for s in snapshot.skipped}
    assert reasons == {
        ".env": SECRET_REASON, ".env.production": SECRET_REASON, "id_rsa": SECRET_REASON,
        "pkg/server.pem": SECRET_REASON, "deploy_notes.txt": "holds a private key: not read",
    }


def test_inside_a_git_work_tree_only_what_git_would_list_is_read(tmp_path: Path) -> None:
    project = secret_project(tmp_path)
    (project / ".gitignore").write_text("local_settings.py\ndata/\n")
    (project / "local_settings.py").write_text("TOKEN = 'ghp_secret'\n")
    (project / "data").mkdir()
    (project / "data" / "dump.sql").write_text("INSERT INTO users VALUES ('alice', 'pw');\n")
    (project / "untracked_new.py").write_text("X = 1\n")
    git(project, "init", "-q")
    git(project, "add", "pkg/mod.py", ".gitignore")
    snapshot = read_project(project)
    assert sorted(snapshot.files) == [".gitignore", "pkg/mod.py", "untracked_new.py"]
    reasons = {s.path: s.reason for s in snapshot.skipped}
    assert reasons["local_settings.py"] == IGNORED_REASON and reasons["data/"] == IGNORED_REASON
    assert reasons[".env"] == SECRET_REASON  # secrets are left out whether or not git lists them


def test_the_projects_git_configuration_runs_nothing(tmp_path: Path) -> None:
    project = secret_project(tmp_path)
    git(project, "init", "-q")
    canary = tmp_path / "fsmonitor-ran"
    hook = project / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {canary}\n")
    hook.chmod(0o755)
    git(project, "config", "core.fsmonitor", str(hook))
    assert "pkg/mod.py" in read_project(project).files
    assert not canary.exists()


def test_a_new_checkpoint_database_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "runs" / "checkpoints.sqlite"
    with open_checkpointer(path):
        pass
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_codeheal_fix_says_what_it_left_out(tmp_path: Path, capsys) -> None:
    from codeheal.cli import main

    project = secret_project(tmp_path)
    (project / "tests").mkdir()
    (project / "tests" / "test_mod.py").write_text("from pkg.mod import f\n\ndef test_f():\n    assert f() == 1\n")
    code = main(["fix", str(project), "--test", "python -m pytest -q", "--model", "unreachable",
                 "--base-url", "http://127.0.0.1:9/v1", "--checkpointer", str(tmp_path / "c.sqlite")])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0, err  # the tests pass as the project is: no model call
    assert f".env ({SECRET_REASON})" in err and "deploy_notes.txt (holds a private key: not read)" in err
