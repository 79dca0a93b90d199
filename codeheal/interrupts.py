"""What an interrupt must not cut in half: a lock held while a run writes into the user's files."""

from __future__ import annotations

import threading

WRITING = threading.Lock()
"""Held while a change's files are renamed into place (forms/project/diff.py): a caller that
abandons the run's thread on Ctrl-C (codeheal.runner) takes it first, so a change is never left
half written."""
