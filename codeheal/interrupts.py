"""Interrupts: Ctrl-C heard however the process was started, and a lock held while a run writes
into the user's files, which an interrupt must not cut in half."""

from __future__ import annotations

import signal
import threading

WRITING = threading.Lock()
"""Held while a change's files are renamed into place (forms/project/diff.py): a caller that
abandons the run's thread on Ctrl-C (codeheal.runner) takes it first, so a change is never left
half written."""


def hear_interrupts() -> None:
    """Make SIGINT raise KeyboardInterrupt in this (main) thread even when the process started
    with SIGINT ignored: Python installs its handler only where SIGINT was left at its default,
    and a background job of a non-interactive shell (`codeheal solve ... &` in a script, a tool
    that launches it so) inherits it ignored, so a `kill -INT` or a Ctrl-C went unheard until the
    run ended. A no-op outside the main thread (a caller running the CLI in a thread of its own)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
