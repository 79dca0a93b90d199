"""The bubblewrap command line that isolates one job.

Inside: the host filesystem read-only, a private /tmp holding the workspace (the only
writable place), the home directories and the project directory hidden except for the
interpreter and virtualenv (re-exposed read-only), no network, own pid/ipc/uts namespaces,
an empty environment, a new session, and death with the parent."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from codeheal.errors import SandboxError

WORKSPACE = "/tmp/workspace"
"""Where the job's workspace appears inside the sandbox."""
INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: 'sudo apt-get install bubblewrap'; "
    "Fedora: 'sudo dnf install bubblewrap'), or run `make system` as root"
)
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc", "/opt", "/tmp", "/var")


def find_bwrap() -> str:
    """The path of a bubblewrap that can start a sandbox here.

    Raises SandboxError naming the cause (not installed, or installed but
    unable to create namespaces) and what to do."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxError(f"bubblewrap (bwrap) is not on PATH: {INSTALL_HINT}")
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        raise SandboxError(
            "setpriv (util-linux) is not on PATH: codeheal needs it to drop root inside bubblewrap; "
            "install util-linux"
        )
    _probe(bwrap)
    return bwrap


@functools.cache
def _probe(bwrap: str) -> None:
    probe = subprocess.run(
        [bwrap, *_namespace_args(), "--ro-bind", "/", "/", "--", "/bin/true"],
        capture_output=True, text=True, timeout=10,
    )
    if probe.returncode != 0:
        raise SandboxError(
            f"{bwrap} cannot create a sandbox here ({probe.stderr.strip() or probe.returncode}): "
            "unprivileged user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1 "
            "or apparmor_restrict_unprivileged_userns=0), or run codeheal as root"
        )


def bwrap_argv(
    bwrap: str,
    *,
    workspace: str,
    python: str,
    python_args: Sequence[str],
    env: Mapping[str, str],
    uid: int | None,
) -> list[str]:
    """The full argv: bwrap, its options, then (as root) setpriv down to `uid`, then python."""
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run"]
    keep = python_prefixes(python)
    argv += _hide_private_dirs(keep)
    argv += ["--perms", "1777", *_masked("/tmp", keep), "--bind", workspace, WORKSPACE, "--chdir", WORKSPACE]
    argv += [*_namespace_args(), "--die-with-parent", "--new-session", "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    if uid is not None:
        argv += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--", "setpriv",
                 "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
                 "--inh-caps=-all", "--no-new-privs"]
    return [*argv, "--", python, *python_args]


def _namespace_args() -> list[str]:
    # As root, a user namespace would map only uid 0 and forbid the drop to the job uid;
    # unprivileged bwrap needs one to create the others.
    user = [] if os.geteuid() == 0 else ["--unshare-user"]
    return [*user, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]


@functools.cache
def python_prefixes(python: str) -> tuple[str, ...]:
    """The directories an interpreter needs: its installation and its virtualenv."""
    if python == sys.executable:
        found = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    else:
        out = subprocess.run(
            [python, "-c", "import sys; print(sys.prefix, sys.base_prefix, sep='\\n')"],
            capture_output=True, text=True, timeout=30, check=True,
        ).stdout
        found = set(out.split())
    found.add(str(Path(python).resolve().parent.parent))
    return tuple(sorted(os.path.realpath(p) for p in found))


def _hide_private_dirs(keep: Sequence[str]) -> list[str]:
    """Empty tmpfs over the home directories and the project directory, with the
    interpreter directories under them bound back read-only."""
    candidates = {os.path.realpath(p) for p in (Path.home(), "/home", "/root", os.getcwd())}
    hidden = sorted(
        p for p in candidates
        if os.path.isdir(p) and p != "/"
        and not any(_within(s, p) or _within(p, s) for s in _SYSTEM_DIRS)
        and not any(_within(p, k) for k in keep)
    )
    hidden = [p for p in hidden if not any(p != q and _within(p, q) for q in hidden)]
    return [arg for mask in hidden for arg in _masked(mask, keep)]


def _masked(mask: str, keep: Sequence[str]) -> list[str]:
    """An empty tmpfs over `mask`, with the `keep` directories under it bound back read-only
    (a virtualenv may live under /tmp or a home directory)."""
    argv = ["--tmpfs", mask]
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
