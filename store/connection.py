"""Connecting to PostgreSQL: URL dialects, a redacted URL for messages, one clear error."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

import psycopg

from core.errors import StoreUnavailableError
from core.tuning import TUNING, Tuning


def psycopg_url(url: str) -> str:
    """``url`` as psycopg takes it (without SQLAlchemy's driver suffix)."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def sqlalchemy_url(url: str) -> str:
    """``url`` as SQLAlchemy (langchain-postgres' ``PGEngine``) takes it: ``postgresql+psycopg://``."""
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def redact(url: str) -> str:
    """``url`` without its credentials, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://…@{rest.split('@', 1)[1]}"
    return url


def connect(url: str) -> psycopg.Connection:
    """An autocommit connection to ``url`` (5 s connect timeout).

    Raises:
        StoreUnavailableError: the URL is not PostgreSQL's, or the server cannot be reached.
    """
    if not url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        raise StoreUnavailableError(
            f"DATABASE_URL '{redact(url)}' is not a PostgreSQL URL; use postgresql://user:password@host:port/db, "
            "or unset it to use the embedded database"
        )
    try:
        return psycopg.connect(psycopg_url(url), connect_timeout=5, autocommit=True)
    except psycopg.Error as exc:
        lines = [" ".join(line.split()) for line in str(exc).splitlines() if line.strip()]
        reason = lines[-1] if lines else type(exc).__name__
        raise StoreUnavailableError(
            f"cannot connect to PostgreSQL at {redact(url)} ({reason}); start the server, fix "
            "DATABASE_URL, or unset it to use the embedded database"
        ) from exc


@dataclass
class TableAddon:
    """What a collection keeps beside its chunk table ``table`` (the BM25 index, the mention
    graph), reached on ``conn``, an autocommit connection."""

    _conn: psycopg.Connection
    table: str
    tuning: Tuning = TUNING
    suffixes: ClassVar[tuple[str, ...]] = ()
    """Its tables, named ``<table>_<suffix>``."""

    def drop(self) -> None:
        """Drop its tables if they exist (left over when the chunk table was dropped with ``CASCADE``)."""
        if self.suffixes:
            self._conn.execute(f"DROP TABLE IF EXISTS {', '.join(f'{self.table}_{s}' for s in self.suffixes)}")

    @contextmanager
    def serialised(self, what: str) -> Iterator[None]:
        """A transaction holding the advisory lock ``<table>_<what>`` until it ends, so processes
        sharing the database run the block one after another: ``CREATE INDEX IF NOT EXISTS`` is
        not safe against a concurrent twin (both pass the check, the second fails on the catalog's
        unique key), and the mention graph's update must not interleave."""
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{self.table}_{what}",))
            yield
