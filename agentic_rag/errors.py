"""Errors raised to users. Each message says what went wrong and what to do next.

The CLI prints ``str(error)`` on one line and exits with ``error.exit_code``.
"""


def describe_validation(exc: Exception) -> str:
    """``field: problem; …`` for a pydantic ``ValidationError`` (any exception with ``errors()``)."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())


class AgenticRagError(Exception):
    """Base class of every error meant for a user rather than a traceback."""

    exit_code = 1


class InvalidQuestionError(AgenticRagError, ValueError):
    """The question is empty, whitespace, or longer than the configured limit."""

    exit_code = 2


class StoreUnavailableError(AgenticRagError):
    """PostgreSQL cannot be reached or started."""

    exit_code = 3


class EmbeddingMismatchError(AgenticRagError):
    """A collection was built with another embedding model or dimension."""

    exit_code = 4


class IngestError(AgenticRagError):
    """Nothing could be ingested (a missing path, or every file unreadable)."""

    exit_code = 5


class ConfigurationError(AgenticRagError, ValueError):
    """A setting is invalid, or a chat model is required but not configured."""

    exit_code = 6


class ThreadError(AgenticRagError):
    """A thread does not exist or has nothing to resume."""

    exit_code = 7


class CollectionNotFoundError(AgenticRagError):
    """A question was asked of a collection that does not exist or holds no chunks."""

    exit_code = 8


class InvalidAnswerError(AgenticRagError):
    """A review (interrupt) did not accept the answer given; the thread still waits for one."""

    exit_code = 9
