"""The exceptions codeheal raises, grouped by what the caller can do about them."""


class CodehealError(Exception):
    """Base class of every error codeheal raises on purpose."""


class InputError(CodehealError, ValueError):
    """The task, tests or entry point are unusable; raised before any model call."""


class ConfigError(CodehealError, ValueError):
    """A setting (Context field, environment variable, CLI flag) is invalid."""


class SandboxError(CodehealError):
    """The sandbox could not run the candidate: an infrastructure fault, never an attempt."""


class ModelError(CodehealError):
    """The chat model could not be reached or set up."""
