"""The exceptions codeheal raises, grouped by what the caller can do about them."""


class CodehealError(Exception):
    """Base class of every error codeheal raises on purpose."""


class InputError(CodehealError, ValueError):
    """The task, tests or entry point are unusable; raised before any model call."""


class FlakyTestsError(InputError):
    """Project form: the tests failed on the project as it is, then passed on a rerun of it
    unchanged; codeheal repairs no flaky test."""


class PromptTooLargeError(InputError):
    """The task does not fit the model's context window, even with its tests, data and code
    shown in part: a model with a larger context (or a smaller task) is needed."""


class EditRejected(CodehealError):
    """A model's reply cannot be applied as targeted edits of the project; the message says
    why and what to send instead. An attempt outcome (the evaluator's feedback), not a fault."""


class ConfigError(CodehealError, ValueError):
    """A setting (Context field, environment variable, CLI flag) is invalid."""


class SandboxError(CodehealError):
    """The sandbox could not run the candidate: an infrastructure fault, never an attempt."""


class ModelError(CodehealError):
    """The chat model could not be reached or set up."""


class DeadlineReached(CodehealError):
    """A model call ran into the run's deadline (Context.deadline_s) and was cut. Not a fault
    and never retried: the node that made the call ends the run with status "deadline" and
    its best attempt so far."""


class ModelUnavailableError(ModelError):
    """The model endpoint is unreachable, overloaded or failing (5xx, 429): worth a retry."""


class SandboxUnavailableError(SandboxError):
    """The sandbox service is unreachable or busy (transport fault, rate limit): worth a retry."""


class SandboxAuthError(SandboxError, ConfigError):
    """The sandbox service has no API key or rejected it: retrying cannot help."""


def is_transient(exc: BaseException) -> bool:
    """Whether a node should be retried after `exc`: transport faults, never test outcomes,
    bad input or a rejected key."""
    return isinstance(exc, ModelUnavailableError | SandboxUnavailableError | ConnectionError | TimeoutError)


class CheckpointError(ConfigError):
    """The checkpoint store is missing, unreadable, or not a checkpoint database; or a
    thread cannot be continued from it."""


class RunInterrupted(Exception):
    """A run stopped by SIGINT (Ctrl-C) or SIGTERM: its thread keeps the last checkpoint, and
    `codeheal resume thread_id` continues it at the next step. Not a CodehealError: nothing
    went wrong."""

    def __init__(self, thread_id: str, signum: int) -> None:
        super().__init__(f"interrupted; continue with: codeheal resume {thread_id}")
        self.thread_id = thread_id
        self.signum = signum
