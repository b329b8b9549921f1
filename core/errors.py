"""Errors raised to users. Each message says what went wrong and what to do next.

The CLI prints ``str(error)`` on one line and exits with ``error.exit_code``, given per class
(``class X(AgenticRagError, exit_code=N)``).
"""

import difflib


def describe_validation(exc: Exception) -> str:
    """``field: problem; …`` for a pydantic ``ValidationError`` (any exception with ``errors()``),
    without pydantic's "Value error, " before a validator's own message."""
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg'].removeprefix('Value error, ')}" for e in exc.errors())


def similar_ids(known_ids: list[str], thread_id: str) -> list[str]:
    """The existing thread ids closest to ``thread_id`` (difflib's similarity, at most two): what a
    typo meant. The least similarity is 0.75, or what one wrong character leaves of a shorter id
    (``t2`` for ``t1``: 0.5)."""
    cutoff = min(0.75, 1 - 1 / max(len(thread_id), 2))
    return difflib.get_close_matches(thread_id, known_ids, n=2, cutoff=cutoff)


def did_you_mean(similar: list[str]) -> str:
    """ "did you mean A or B?" for the ``similar`` ids; empty when there are none."""
    return f"did you mean {' or '.join(similar)}?" if similar else ""


class AgenticRagError(Exception):
    """Base class of every error meant for a user rather than a traceback."""

    exit_code = 1

    def __init_subclass__(cls, exit_code: int | None = None, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if exit_code is not None:
            cls.exit_code = exit_code


class InvalidQuestionError(AgenticRagError, ValueError, exit_code=2):
    """The question is empty, whitespace, or longer than the configured limit."""


class StoreUnavailableError(AgenticRagError, exit_code=3):
    """PostgreSQL cannot be reached or started."""


class EmbeddingMismatchError(AgenticRagError, exit_code=4):
    """A collection was built with another embedding model or dimension."""


class IngestError(AgenticRagError, exit_code=5):
    """Nothing could be ingested (a missing path, or every file unreadable)."""


class ConfigurationError(AgenticRagError, ValueError, exit_code=6):
    """A setting is invalid, or a chat model is required but not configured."""


class ThreadError(AgenticRagError, exit_code=7):
    """A thread does not exist or has nothing to resume."""


class CollectionNotFoundError(AgenticRagError, exit_code=8):
    """A question was asked of a collection that does not exist or holds no chunks."""


class InvalidAnswerError(AgenticRagError, exit_code=9):
    """A review (interrupt) did not accept the answer given; the thread still waits for one."""


class LocalModelError(AgenticRagError, exit_code=10):
    """The local model cannot be installed or served (runtime missing, file missing or corrupt,
    port busy, server not ready or gone)."""


def unknown_thread(thread_id: str, known_ids: list[str], where: str) -> ThreadError:
    """The error for a thread id no checkpoint in ``where`` has, naming the ``known_ids`` closest
    to it (:func:`similar_ids`) when it looks like a typo."""
    hint = did_you_mean(similar_ids(known_ids, thread_id))
    return ThreadError(f"no thread '{thread_id}' in {where}" + (f" ({hint})" if hint else ""))
