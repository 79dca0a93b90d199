"""The bubblewrap command line that isolates one job.

Inside: the host filesystem read-only; size-limited tmpfs over /tmp (the workspace, the only
writable place), /run (no host sockets) and /dev/shm; the home directories, the project
directory and the virtualenv hidden, the interpreter's installation re-exposed read-only;
pytest and its requirements (only they) under SITE; no network, own pid/ipc/uts namespaces,
an empty environment, a new session, and death with the parent. The job's files are copied in
from descriptors, so nothing of the job lives on the host's disk."""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from codeheal.errors import SandboxError
from codeheal.sandboxes.runtime import Runtime

WORKSPACE = "/tmp/workspace"
"""Where the job's workspace appears inside the sandbox."""
SITE = "/run/codeheal/site"
"""Where pytest and its requirements appear inside the sandbox (the job's PYTHONPATH)."""
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: 'sudo apt-get install bubblewrap'; "
    "Fedora: 'sudo dnf install bubblewrap'), or run `make system` as root; "
    'or accept basic isolation explicitly (isolation="basic", CLI --isolation basic)'
)
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
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/tmp", "/var", "/proc", "/dev", "/sys")


def find_bwrap() -> str:
    """The path of bubblewrap (and of the util-linux tools the job's command uses).

    Raises SandboxError naming what is missing and how to install it."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError(f"bubblewrap (bwrap) is not on PATH: {INSTALL_HINT}")
    tools = ("prlimit", "setpriv") if os.geteuid() == 0 else ("prlimit",)
    for tool in tools:
        if shutil.which(tool) is None:
            raise SandboxError(f"{tool} (util-linux) is not on PATH: codeheal needs it inside bubblewrap; install util-linux")
    return bwrap


def start_hint(stderr: str) -> str:
    """What to do about bubblewrap's start error `stderr`: the user-namespace case named with
    its fix, else how to install bubblewrap."""
    return USERNS_HINT if any(text in stderr for text in USERNS_ERRORS) else INSTALL_HINT


def bwrap_argv(
    bwrap: str,
    *,
    runtime: Runtime,
    files: Mapping[str, int],
    env: Mapping[str, str],
    status_fd: int,
    disk_mb: int,
    as_root: bool,
    expose: Sequence[str] = (),
) -> list[str]:
    """bwrap and its options, up to and including the `--` before the job's command.

    `files` maps workspace names to descriptors to copy them from; `status_fd` receives
    bubblewrap's JSON status (a "child-pid" line once the namespaces exist). As root the
    command may drop to a job uid (CAP_SETUID/CAP_SETGID kept for it). `expose`: more host
    folders shown read-only (a project's virtualenv, for a command job)."""
    keep = (*runtime.base_prefixes, *(os.path.realpath(p) for p in expose))
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", *_tmpfs("/dev/shm"), "--proc", "/proc"]
    argv += [*_tmpfs("/run"), "--perms", "0755", "--dir", "/run/codeheal", "--perms", "0755", "--dir", SITE]
    if os.path.isdir("/var/run") and not os.path.islink("/var/run"):
        argv += _tmpfs("/var/run")
    argv += _hide_private_dirs(runtime, keep)
    for folder in keep[len(runtime.base_prefixes):]:
        if folder in _hidden_dirs(runtime):  # a hidden folder itself, not one inside it
            argv += ["--ro-bind", folder, folder]
    argv += _masked("/tmp", keep, size_mb=disk_mb, mode="1777")
    argv += ["--perms", "0777", "--dir", WORKSPACE]
    for name, fd in files.items():
        for parent in _parents_between(WORKSPACE, f"{WORKSPACE}/{name}"):
            argv += ["--perms", "0777", "--dir", parent]
        argv += ["--perms", "0666", "--file", str(fd), f"{WORKSPACE}/{name}"]
    for name, path in runtime.packages:
        argv += ["--ro-bind", path, f"{SITE}/{name}"]
    argv += ["--chdir", WORKSPACE, *_namespace_args(as_root), "--die-with-parent", "--new-session", "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    argv += ["--json-status-fd", str(status_fd)]
    if as_root:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*argv, "--"]


def _namespace_args(as_root: bool) -> list[str]:
    # As root, a user namespace would map only uid 0 and forbid the drop to the job uid;
    # unprivileged bwrap needs one to create the others.
    user = [] if as_root else ["--unshare-user"]
    return [*user, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]


def _tmpfs(path: str) -> list[str]:
    return _masked(path, (), size_mb=SMALL_TMPFS_MB)


@functools.cache
def _hidden_dirs(runtime: Runtime) -> tuple[str, ...]:
    """The folders to hide: home directories, the project directory, the virtualenv and
    the folder codeheal is imported from (an editable install's checkout)."""
    import codeheal

    candidates = {Path.home(), "/home", "/root", os.getcwd(), Path(codeheal.__file__).parent.parent}
    if runtime.venv:
        candidates.add(runtime.venv)
    real = {os.path.realpath(p) for p in candidates}
    hidden = sorted(
        p for p in real
        if os.path.isdir(p)
        and not any(_within(s, p) for s in _SYSTEM_DIRS)  # not "/" nor a parent of /usr ...
        and not any(_within(p, s) for s in ("/tmp", "/proc", "/dev", "/sys", "/usr"))
    )
    return tuple(p for p in hidden if not any(p != q and _within(p, q) for q in hidden))


def _hide_private_dirs(runtime: Runtime, keep: Sequence[str]) -> list[str]:
    """Empty tmpfs over the hidden folders, with the interpreter's folders under them bound
    back read-only."""
    return [arg for mask in _hidden_dirs(runtime) for arg in _masked(mask, keep, size_mb=SMALL_TMPFS_MB)]


def _masked(mask: str, keep: Sequence[str], *, size_mb: int, mode: str = "0755") -> list[str]:
    """A tmpfs of `size_mb` over `mask`, with the `keep` folders under it bound back
    read-only (an interpreter may live under /tmp or a home directory)."""
    argv = ["--perms", mode, "--size", str(size_mb * 2**20), "--tmpfs", mask]
    for prefix in keep:
        if _within(prefix, mask) and prefix != mask:
            for parent in _parents_between(mask, prefix):
                argv += ["--perms", "0755", "--dir", parent]
            argv += ["--ro-bind", prefix, prefix]
    return argv


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
