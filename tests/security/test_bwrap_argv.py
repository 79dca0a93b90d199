"""The bubblewrap command line: what is hidden, what is size-limited, what is bound back."""

from __future__ import annotations

import os

from codeheal.sandboxes import bwrap
from codeheal.sandboxes.runtime import Runtime


def argv_for(base: str, venv: str | None = None) -> list[str]:
    runtime = Runtime(executable=f"{base}/bin/python3", base_prefixes=(base,),
                      packages=(("pytest", f"{venv or base}/site-packages/pytest"),))
    return bwrap.bwrap_argv("bwrap", runtime=runtime, read_only={"test_solution.py": 7}, env={},
                            status_fd=9, disk_mb=64, as_root=False)


def test_an_interpreter_under_tmp_is_bound_back_after_the_private_tmp() -> None:
    # CI may clone the project (and its .venv) under /tmp, which the sandbox replaces.
    argv = argv_for("/tmp/clone/python")
    private_tmp = argv.index("/tmp", argv.index("--tmpfs"))
    bind = argv.index("/tmp/clone/python")
    assert argv[bind - 1] == "--ro-bind" and bind > private_tmp
    assert argv[argv.index("/tmp/clone") - 1] == "--dir"  # traversable by the job uid
    assert argv.index(bwrap.WORKSPACE) < bind  # the workspace first: a venv inside a project shows through it


def test_a_project_at_its_own_path_hides_the_host_folder_and_shows_its_venv() -> None:
    runtime = Runtime(executable="/home/u/proj/.venv/bin/python", base_prefixes=("/opt/py", "/home/u/proj/.venv"),
                      packages=(), site=True)
    argv = bwrap.bwrap_argv("bwrap", runtime=runtime, read_only={"tests/test_wc.py": 7}, env={},
                            status_fd=9, disk_mb=64, as_root=False, workdir="/home/u/proj")
    workspace = argv.index("/home/u/proj")
    assert argv[workspace - 1] == "--tmpfs"  # the copy, never the host's folder
    assert argv[argv.index("/home/u") - 1] == "--dir" and argv[argv.index("/home") - 1] == "--dir"
    assert argv[argv.index("/home/u/proj/tests/test_wc.py") - 2:][:2] == ["--ro-bind-data", "7"]
    assert bwrap.unpack_argv("/home/u/proj")[-1] == "/home/u/proj"  # the rest, unpacked there
    venv = argv.index("/home/u/proj/.venv")
    assert argv[venv - 1] == "--ro-bind" and venv > workspace
    assert argv[argv.index("--chdir") + 1] == "/home/u/proj"
    assert bwrap.WORKSPACE not in argv


def test_every_tmpfs_has_a_size_and_host_run_is_hidden() -> None:
    argv = argv_for("/usr")
    mounts = [i for i, a in enumerate(argv) if a == "--tmpfs"]
    assert {argv[i + 1] for i in mounts} >= {"/tmp", "/run", "/dev/shm"}
    assert all(argv[i - 2] == "--size" for i in mounts)
    assert argv[argv.index("/tmp") - 1] == "--tmpfs" and argv[argv.index("/tmp") - 2] == str(64 * 2**20)


def test_files_come_from_descriptors_and_only_pytest_is_on_the_site() -> None:
    argv = argv_for("/usr", venv="/var/cache")
    assert argv[argv.index(f"{bwrap.WORKSPACE}/test_solution.py") - 4:][:4] == ["--perms", "0444", "--ro-bind-data", "7"]
    # the writable files come on the job's input, unpacked, then replaced by /dev/null: no archive stays mounted
    assert not any(a.endswith(".tar") for a in argv)
    assert bwrap.unpack_argv(bwrap.WORKSPACE)[2].endswith('exec "$@" </dev/null')
    assert argv[argv.index(f"{bwrap.SITE}/pytest") - 1] == "/var/cache/site-packages/pytest"
    # the virtualenv itself is never bound: only pytest's folder from it, under SITE
    assert [a for a in argv if a.startswith("/var")] == ["/var/cache/site-packages/pytest"]
    assert argv[-1] == "--" and argv[argv.index("--json-status-fd") + 1] == "9"


def test_only_the_system_and_the_interpreter_are_bound_from_the_host() -> None:
    argv = argv_for("/opt/python")
    sources = {argv[i + 1] for i, a in enumerate(argv) if a == "--ro-bind"}
    assert sources == {"/usr", "/etc", "/opt/python", "/opt/python/site-packages/pytest"} | {
        p for p in bwrap.SYSTEM_LINKS if os.path.isdir(p) and not os.path.islink(p)
    }
    assert "/" not in sources


def test_the_ubuntu_apparmor_userns_refusal_names_its_fix() -> None:
    from codeheal.sandboxes.bwrap import install_hint, start_hint

    hint = start_hint("bwrap: setting up uid map: Permission denied\n")
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in hint and "AppArmor profile" in hint
    assert "--sandbox e2b" in hint
    assert start_hint("bwrap: No permissions to create new namespace, likely because the kernel does not allow") == hint
    assert start_hint("bwrap: execvp prlimit: No such file or directory") == install_hint()
