"""Reading a project into a workspace: what is kept, what is left out, and the caps."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from codeheal.errors import InputError
from codeheal.forms.project.snapshot import find_python, read_project

FIXTURE = Path(__file__).with_name("fixtures") / "shop"


def make_project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\r\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mod.py").write_text("from pkg.mod import f\n")
    for junk in (".git", "__pycache__", ".pytest_cache", "build", "dist", "node_modules", "pkg.egg-info"):
        (root / junk).mkdir()
        (root / junk / "x.py").write_text("junk")
    (root / "env").mkdir()
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "env" / "lib.py").write_text("junk")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    return root


def test_reads_text_files_and_binary_files_as_bytes_and_skips_the_rest(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    (project / "data" / "empty").mkdir(parents=True)
    snapshot = read_project(project)
    assert sorted(snapshot.files) == ["pkg/mod.py", "tests/test_mod.py"]
    assert snapshot.files["pkg/mod.py"].endswith("\r\n"), "line endings are kept as they are"
    assert snapshot.data == {"logo.png": b"\x89PNG\r\n\x1a\n\0\0\0"}  # for the sandbox, never the model
    assert snapshot.folders == {"data/empty"}
    assert snapshot.total_bytes == sum(len(t.encode()) for t in snapshot.files.values()) + 11


def test_links_never_lead_out_of_the_project(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("password")
    project = make_project(tmp_path / "p")
    (project / "leak.txt").symlink_to(outside)
    (project / "alias.py").symlink_to(project / "pkg" / "mod.py")
    (project / "linked_dir").symlink_to(tmp_path)
    snapshot = read_project(project)
    assert "leak.txt" not in snapshot.files and "password" not in "".join(snapshot.files.values())
    assert snapshot.files["alias.py"] == snapshot.files["pkg/mod.py"]
    reasons = {s.path: s.reason for s in snapshot.skipped}
    assert reasons["leak.txt"].startswith("a link that leaves")
    assert reasons["linked_dir/"].startswith("link to a folder")


def test_the_project_is_never_written(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in project.rglob("*") if p.is_file()}
    read_project(project)
    after = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in project.rglob("*") if p.is_file()}
    assert before == after


def test_file_cap_names_the_cap_the_count_and_the_biggest_entries(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    (project / "data").mkdir()
    for n in range(30):
        (project / "data" / f"{n}.txt").write_text("x")
    with pytest.raises(InputError, match=r"33 files, over the cap of 10; the most are in data/ \(30 files\)"):
        read_project(project, max_files=10)


def test_size_cap_names_the_cap_the_size_and_the_biggest_entries(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    (project / "big.csv").write_text("1," * 5000)
    with pytest.raises(InputError, match=r"10,0\d\d bytes of files, over the cap of 1,000; the biggest are big.csv"):
        read_project(project, max_bytes=1000)


def test_not_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        read_project(tmp_path / "missing")


def test_fixture_project_snapshot() -> None:
    snapshot = read_project(FIXTURE)
    assert {"shop/pricing.py", "shop/cart.py", "tests/test_cart.py", "conftest.py"} <= set(snapshot.files)
    assert snapshot.skipped == []


def make_venv(folder: Path) -> Path:
    """A virtualenv's layout whose bin/python links to a real interpreter (never run here)."""
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.symlink_to(os.path.realpath(sys.executable))
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\n")
    return python


def test_python_explicit_then_project_venv_then_active(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    active = make_venv(tmp_path / "active")
    environ = {"VIRTUAL_ENV": str(tmp_path / "active")}
    assert find_python(project, environ={}) is None
    assert find_python(project, environ=environ).interpreter == active
    own = make_venv(project / ".venv")
    found = find_python(project, environ=environ)
    assert (found.interpreter, found.source) == (own, "project .venv")
    assert find_python(project, python=str(active), environ=environ).source == "--python"


def test_python_flag_must_name_an_interpreter(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--python .*no executable file"):
        find_python(tmp_path, python=str(tmp_path / "nope"))


def test_a_script_posing_as_the_projects_python_is_refused_unrun(tmp_path: Path) -> None:
    canary = tmp_path / "ran"
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    script = tmp_path / ".venv" / "bin" / "python"
    script.write_text(f"#!/bin/sh\ntouch {canary}\n")
    script.chmod(0o755)
    with pytest.raises(InputError, match=r"project \.venv .*bin/python: not a Python interpreter"):
        find_python(tmp_path, environ={})
    assert not canary.exists()


def test_binary_files_count_toward_the_size_cap_and_the_largest_files_are_named(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p")
    (project / "tests" / "fixtures").mkdir()
    (project / "tests" / "fixtures" / "blob.bin").write_bytes(b"\0" * 5000)
    with pytest.raises(InputError, match=r"the biggest are tests/ \(5,0\d\d bytes\).*the largest files "
                                         r"tests/fixtures/blob.bin \(5,000 bytes\)"):
        read_project(project, max_bytes=1000)
