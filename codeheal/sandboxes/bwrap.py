"""The bubblewrap command line that isolates one job.

Inside, only what a job needs, read-only: the system's programs and libraries (/usr, /etc and
the /bin, /lib ... links or folders), the interpreter's installation and a project's virtualenv;
nothing else of the host, so no home directory, project, /var, /srv or /mnt, and no filesystem socket
a job could connect to. Size-limited tmpfs over /tmp, the workspace (under /tmp, or at a
project's own path: the only writable places), /run and /dev/shm; pytest and its requirements (only they) under SITE; no network, own
pid/ipc/uts namespaces, an empty environment, a new session, and death with the parent. The
job's files are copied in from descriptors (its read-only ones one by one, the others as one
archive its command unpacks), so nothing of the job lives on the host's disk."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from codeheal.errors import SandboxError
from codeheal.install import system_package_hint
from codeheal.sandboxes.runtime import Runtime

WORKSPACE = "/tmp/workspace"
"""Where a job's workspace appears inside the sandbox when it names no workdir of its own."""
SITE = "/run/codeheal/site"
"""Where pytest and its requirements appear inside the sandbox (the job's PYTHONPATH)."""
PYTHON_BIN = "/run/codeheal/bin"
"""A command job's first PATH entry: `python` and `python3`, links to the job's interpreter."""
PYTHON_NAMES = ("python", "python3")
USERNS_HINT = (
    "the kernel refuses bubblewrap an unprivileged user namespace. On Ubuntu 24.04 and later "
    "AppArmor restricts them: allow them with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` "
    "(persist it in /etc/sysctl.d/), or give bwrap an AppArmor profile that allows userns "
    "(/etc/apparmor.d/bwrap: `abi <abi/4.0>, include <tunables/global> profile bwrap /usr/bin/bwrap "
    "flags=(unconfined) { userns, }`, then `sudo systemctl reload apparmor`); elsewhere check "
    "`sysctl kernel.unprivileged_userns_clone` (Debian) or `user.max_user_namespaces`; or run "
    "candidates in E2B (--sandbox e2b)"
)
USERNS_ERRORS = ("setting up uid map", "No permissions to create new namespace", "Creating new namespace failed")
SMALL_TMPFS_MB = 8
"""Size of the tmpfs mounts other than /tmp (masks, /run, /dev/shm)."""
SYSTEM_DIRS = ("/usr", "/etc")
"""Bound read-only into every job: the system's programs, libraries and configuration."""
SYSTEM_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Links into /usr on a merged-/usr system (made as links), else folders (bound read-only)."""


def find_bwrap() -> str:
    """The path of bubblewrap (and of the util-linux tools the job's command uses).

    Raises SandboxError naming what is missing and how to install it."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError(f"bubblewrap (bwrap) is not on PATH: {install_hint()}")
    tools = ("prlimit", "setpriv") if os.geteuid() == 0 else ("prlimit",)
    for tool in tools:
        if shutil.which(tool) is None:
            raise SandboxError(f"{tool} (util-linux) is not on PATH: codeheal needs it inside bubblewrap; install util-linux")
    return bwrap


def start_hint(stderr: str) -> str:
    """What to do about bubblewrap's start error `stderr`: the user-namespace case named with
    its fix, else how to install bubblewrap."""
    return USERNS_HINT if any(text in stderr for text in USERNS_ERRORS) else install_hint()


def install_hint() -> str:
    """How to install bubblewrap, for how codeheal was installed, or do without it."""
    return (f'{system_package_hint("bubblewrap")}; or accept basic isolation explicitly '
            '(isolation="basic", CLI --isolation basic)')


def bwrap_argv(
    bwrap: str,
    *,
    runtime: Runtime,
    read_only: Mapping[str, int],
    env: Mapping[str, str],
    status_fd: int,
    disk_mb: int,
    as_root: bool,
    expose: Sequence[str] = (),
    python_link: str | None = None,
    workdir: str = WORKSPACE,
) -> list[str]:
    """bwrap and its options, up to and including the `--` before the job's command.

    `read_only` maps the workspace names the job cannot change to descriptors to copy them
    from (_workspace); the other files come as a tar on the job's standard input, which the
    job's command unpacks first, then replaces with /dev/null (unpack_argv: one argument for any number of files,
    where bubblewrap takes at most 9,000 arguments); `status_fd` receives
    bubblewrap's JSON status (a "child-pid" line once the namespaces exist). As root the
    command may drop to a job uid (CAP_SETUID/CAP_SETGID kept for it). `expose`: more host
    folders shown read-only (a project's virtualenv, for a command job). `python_link`: the interpreter that
    `python` and `python3` in PYTHON_BIN lead to (a command job's). `workdir`: where the
    workspace appears and the job starts (a project's own path: a tmpfs mount there hides the
    host's folder; its parents are made as empty folders, so nothing else of the host shows)."""
    argv = [bwrap, *_system_binds(), "--dev", "/dev", *_tmpfs("/dev/shm"), "--proc", "/proc"]
    argv += [*_tmpfs("/run"), "--perms", "0755", "--dir", "/run/codeheal", "--perms", "0755", "--dir", SITE]
    if python_link is not None:
        argv += ["--perms", "0755", "--dir", PYTHON_BIN]
        for name in PYTHON_NAMES:
            argv += ["--symlink", python_link, f"{PYTHON_BIN}/{name}"]
    argv += _tmpfs("/tmp", size_mb=disk_mb, mode="1777")
    argv += _workspace(workdir, read_only, disk_mb)
    # After the workspace: a project's virtualenv inside its own folder shows through the copy.
    for prefix in dict.fromkeys((*runtime.base_prefixes, *(os.path.realpath(p) for p in expose))):
        if not any(_within(prefix, system) for system in SYSTEM_DIRS):
            for parent in _parents_between("/", prefix):
                argv += ["--perms", "0755", "--dir", parent]
            argv += ["--ro-bind", prefix, prefix]
    for name, path in runtime.packages:
        argv += ["--ro-bind", path, f"{SITE}/{name}"]
    argv += ["--chdir", workdir, *_namespace_args(as_root), "--die-with-parent", "--new-session", "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    argv += ["--json-status-fd", str(status_fd)]
    if as_root:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*argv, "--"]


def _workspace(workdir: str, read_only: Mapping[str, int], disk_mb: int) -> list[str]:
    """The workspace and its read-only files (the others come from the archive). The
    workspace, and each folder holding a read-only file, is a tmpfs mount of its own, which
    nothing inside can rename or remove (a mount point), so a read-only file's path always
    leads to it; each read-only file is a read-only bind mount (no write, rename or unlink),
    and each such folder holds an empty read-only `__pycache__` mount, so no bytecode can
    stand in for a test's source."""
    guarded = {workdir} | {str(Path(f"{workdir}/{name}").parent) for name in read_only}
    folders = guarded | {parent for folder in guarded for parent in _parents_between(workdir, folder)}
    argv: list[str] = []
    for parent in _parents_between("/", workdir):
        argv += ["--perms", "0755", "--dir", parent]
    for folder in sorted(folders, key=lambda f: (f.count("/"), f)):
        if folder in guarded:
            argv += [*_tmpfs(folder, size_mb=disk_mb, mode="0777"), *_tmpfs(f"{folder}/__pycache__", size_mb=1),
                     "--remount-ro", f"{folder}/__pycache__"]
        else:
            argv += ["--perms", "0777", "--dir", folder]
    for name, fd in read_only.items():
        argv += ["--perms", "0444", "--ro-bind-data", str(fd), f"{workdir}/{name}"]
    return argv


def unpack_argv(workdir: str) -> list[str]:
    """The start of a job's command inside bubblewrap: unpack the archive of its writable files
    (a tar on standard input) into `workdir` (as the job's uid, which then owns them; no times,
    owners or modes restored onto the folders bubblewrap made), then run the rest of the
    command in its place with /dev/null as its input: nothing of the archive (the module form's
    tests) stays readable in the job."""
    return ["/bin/sh", "-c", 'tar -x -m --no-same-owner -f - -C "$1" && shift && exec "$@" </dev/null', "unpack",
            workdir]


def _namespace_args(as_root: bool) -> list[str]:
    # As root, a user namespace would map only uid 0 and forbid the drop to the job uid;
    # unprivileged bwrap needs one to create the others.
    user = [] if as_root else ["--unshare-user"]
    # --as-pid-1: the job's command (codeheal's supervisor) is pid 1 of the sandbox, which no
    # process inside can kill, and whose end ends every process left inside.
    return [*user, "--unshare-pid", "--as-pid-1", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]


def _system_binds() -> list[str]:
    argv = []
    for folder in SYSTEM_DIRS:
        if os.path.isdir(folder):
            argv += ["--ro-bind", folder, folder]
    for path in SYSTEM_LINKS:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    return argv


def _tmpfs(path: str, *, size_mb: int = SMALL_TMPFS_MB, mode: str = "0755") -> list[str]:
    return ["--perms", mode, "--size", str(size_mb * 2**20), "--tmpfs", path]


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _parents_between(top: str, path: str) -> list[str]:
    """The folders strictly between `top` and `path`, outermost first. bwrap would create
    them with mode 0700, which the unprivileged job uid could not traverse."""
    parents = []
    for parent in Path(path).parents:
        if str(parent) == top or not _within(str(parent), top):
            break
        parents.append(str(parent))
    return parents[::-1]
