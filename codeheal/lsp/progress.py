"""A heal's progress in words, for the editor's work-done progress: the attempt, numbered as
the CLI numbers it (`attempt 2 of 4`: the event's max_attempts, one more once the screen
runs), the phase (tests, screen or model), the tokens the model has written so far (its
`writing` events, while it writes) and the seconds left of the run's limit."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping


class Narration:
    """The progress message of a heal, event by event (codeheal.progress's shapes, read by
    their `kind`; unknown kinds change nothing)."""

    def __init__(self, max_attempts: int, deadline_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.attempt, self.max_attempts = 1, max_attempts
        self.ends = clock() + deadline_s
        self.phase, self.doing = "tests", "running the tests of the project as it is"
        """What runs ("tests", "screen": candidates written without the model, or "model"),
        and what it does."""

    def on_event(self, event: Mapping) -> str | None:
        """The message after `event`; None when it changes nothing shown."""
        kind = event.get("kind")
        if kind == "attempt_started":
            screen = event["max_attempts"] > self.max_attempts  # the screen's attempt is one more
            self.attempt, self.max_attempts = event["attempt"], event["max_attempts"]
            if "seconds_left" in event:  # the run's own clock
                self.ends = self.clock() + event["seconds_left"]
            self.phase, self.doing = ("screen", "writing one-line mutations") if screen else ("model", "writing code")
        elif kind == "writing":
            self.phase = "model"
            self.doing = f"writing code, {event['completion_tokens']} tokens in {event['seconds']:.0f} s"
        elif kind == "candidates_written":
            if event.get("mutants"):
                self.phase, self.doing = "screen", f"testing {event['mutants']} one-line mutations (no model call)"
            else:
                written = f"{event['completion_tokens']} tokens in {event['seconds']:.0f} s"
                self.phase, self.doing = "tests", f"running the tests (code written: {written})"
        elif kind == "tests_result":
            self.attempt = event["attempt"]
            self.doing = f"{event['passed_count']} of {event['total']} tests passed"
        else:
            return None
        return self.message()

    def message(self) -> str:
        left = max(0.0, self.ends - self.clock())
        return f"attempt {self.attempt} of {self.max_attempts}: {self.phase}: {self.doing} · {left:.0f} s left"
