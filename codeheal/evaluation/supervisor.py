"""codeheal's supervisor, copied into each sandbox workspace and run as the job's command.

It never imports the candidate, the tests or pytest (standard library only). It alone holds
the report channel to the host; the test process it starts holds no descriptor that reaches
the host: its report plugin writes evidence to a pipe of the supervisor's, each line
authenticated with a key the supervisor hands the plugin on a pipe read (and closed) before
the candidate is imported, and its output goes through the supervisor. The supervisor passes
on the authenticated evidence and adds what only it can see: how the test process ended, and
how many lines arrived that the plugin did not write. It cannot be traced or written to by the
test process (not dumpable). It starts isolated from the workspace: run it as
`python -I supervisor.py ...` (no PYTHONPATH, no script folder, no user site), so nothing of
the project is imported into it; only the test process sees the workspace. Usage:
python -I supervisor.py PYTHON_ARGS... (the test process's arguments; it runs on this
interpreter, with its -S), or python -I supervisor.py --command ARGV... (a launcher that
starts pytest, found on PATH)."""

import sys

# Standard library only, before anything else is imported: not the workspace (a project file
# named like a module) nor the packages the test process gets.
sys.path[:] = [p for p in sys.path if p.startswith(sys.base_prefix) and "-packages" not in p]

import ctypes  # noqa: E402
import hashlib  # noqa: E402
import hmac  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402

REPORT_FD_ENV = "CODEHEAL_REPORT_FD"
KEY_FD_ENV = "CODEHEAL_KEY_FD"
EVIDENCE_CAP_BYTES = 3 * 1024 * 1024
"""Evidence passed on at most (the host keeps 4 MB of the report channel)."""
COMMAND_FLAG = "--command"
LAUNCH = ["-m", "codeheal_pytest"]
"""How a job names codeheal's way into pytest; the test process runs it by its absolute path
(codeheal_pytest.py beside this file), never looked up by name on a path the workspace is on."""
DRAIN_SECONDS = 3.0
"""How long the evidence is read on after the test process ended (a process it left behind may
hold the pipe open)."""
MAC_CHARS = 32
PR_SET_DUMPABLE = 4
FLAGS = (("no_site", "-S"),)
"""The flags of this interpreter the test process gets too (not -I: it needs its PYTHONPATH)."""


def mac(key, payload):
    """The authentication tag of one evidence line (the report plugin computes the same)."""
    return hmac.new(key, payload, hashlib.sha256).hexdigest()[:MAC_CHARS]


def main(argv):
    # Python's own SIGINT handler is the one signal handler this process would have: as pid 1 of
    # the sandbox's pid namespace, a signal without a handler from inside it is dropped by the
    # kernel, so with none installed nothing the job sends can end the supervisor.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    report = os.fdopen(int(os.environ.pop(REPORT_FD_ENV)), "w", encoding="utf-8", buffering=1)
    os.set_inheritable(report.fileno(), False)
    _not_dumpable()
    key = os.urandom(16).hex().encode()
    evidence_read, evidence_write = os.pipe()
    key_read, key_write = os.pipe()
    os.write(key_write, key)
    os.close(key_write)
    env = {**os.environ, REPORT_FD_ENV: str(evidence_write), KEY_FD_ENV: str(key_read)}
    if argv[:1] == [COMMAND_FLAG]:
        command = _launch_by_path(argv[1:])
    else:
        command = [sys.executable, *(flag for name, flag in FLAGS if getattr(sys.flags, name)), *_launch_by_path(argv)]
    child = subprocess.Popen(
        command, env=env, pass_fds=(evidence_write, key_read),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    os.close(evidence_write)
    os.close(key_read)
    relays = [
        threading.Thread(target=_relay, args=(child.stdout, sys.stdout.buffer), daemon=True),
        threading.Thread(target=_relay, args=(child.stderr, sys.stderr.buffer), daemon=True),
    ]
    for relay in relays:
        relay.start()
    tally = {"forged_lines": 0, "evidence_cut": False}
    lock = threading.Lock()
    recorded = threading.Event()
    reader = threading.Thread(target=_pass_on, args=(evidence_read, key, report, tally, lock, recorded), daemon=True)
    reader.start()
    exit_code = child.wait()
    # A process the candidate left behind may hold the pipes open: stop listening soon after.
    for thread in (reader, *relays):
        thread.join(timeout=DRAIN_SECONDS)
    with lock:
        recorded.set()  # the record is the channel's last line: nothing is passed on after it
        report.write(json.dumps({"supervisor": {"exit_code": exit_code, **tally}}) + "\n")
        report.flush()
    os._exit(0)  # the relay threads may still be blocked on pipes a leftover process holds


def _launch_by_path(words):
    """`words` with the first `-m codeheal_pytest` replaced by the launch script's absolute path."""
    for i in range(len(words) - 1):
        if words[i:i + 2] == LAUNCH:
            here = os.path.dirname(os.path.abspath(__file__))
            return [*words[:i], os.path.join(here, LAUNCH[1] + ".py"), *words[i + 2:]]
    return words


def _not_dumpable():
    """Refuse ptrace and /proc/PID/mem to processes of the same uid (the test process)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _relay(source, target):
    while chunk := source.read1(65536):
        target.write(chunk)
        target.flush()


def _pass_on(fd, key, report, tally, lock, recorded):
    """Authenticated evidence lines passed on to the host, until the supervisor's record is
    written; the rest only counted."""
    sent = 0
    with os.fdopen(fd, "rb") as evidence:
        for line in evidence:
            tag, _, payload = line.rstrip(b"\n").partition(b" ")
            if not hmac.compare_digest(tag, mac(key, payload).encode()):
                tally["forged_lines"] += 1
                continue
            sent += len(payload)
            if sent > EVIDENCE_CAP_BYTES:
                tally["evidence_cut"] = True
                continue
            try:
                record = json.loads(payload)
            except ValueError:
                tally["forged_lines"] += 1
                continue
            with lock:
                if recorded.is_set():
                    return
                report.write(json.dumps({"evidence": record}) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
