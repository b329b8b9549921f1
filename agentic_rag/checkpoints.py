"""The checkpointers: where every thread's checkpoints live.

* No ``DATABASE_URL`` (the embedded server): langgraph-checkpoint-sqlite over one SQLite file
  in the data folder — the sync saver the app runs on and the async saver for callers on an
  event loop use the same tables (WAL mode), so a thread written by one is read and resumed by
  the other.
* ``DATABASE_URL`` set: langgraph-checkpoint-postgres in that same PostgreSQL, through a bounded
  psycopg connection pool per process (``Settings.checkpoint_pool_size``). Every process — CLI,
  Python, servers, on one machine or several — then shares the threads: one process starts a
  run, another lists, inspects or resumes it.
"""

from __future__ import annotations

import inspect
import sqlite3
import time
from contextlib import asynccontextmanager
from typing import AsyncIterator

import aiosqlite
import psycopg
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.postgres import PostgresSaver
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool, ConnectionPool

from core.errors import StoreUnavailableError
from core.settings import Settings
from store.connection import connect, psycopg_url, redact

_SETUP_LOCK = 7_426_018  # advisory lock id: one process at a time creates or migrates the checkpoint tables
_POOL_KWARGS = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row}  # what the savers expect


def checkpoint_location(settings: Settings) -> str:
    """Where the threads are, for messages: the SQLite file, or the PostgreSQL server (redacted)."""
    return (
        f"the checkpoints at {redact(settings.database_url)}"
        if settings.database_url
        else str(settings.checkpoint_path)
    )


def _migrated(conn: psycopg.Connection, latest: int) -> bool:
    if conn.execute("SELECT to_regclass('checkpoint_migrations') AS t").fetchone()["t"] is None:
        return False
    return conn.execute("SELECT max(v) AS v FROM checkpoint_migrations").fetchone()["v"] == latest


def _set_up_tables(url: str) -> None:
    """Create or migrate the checkpoint tables once, one process at a time. The lock is polled
    (``pg_try_advisory_lock``), not waited for: a process blocked inside a statement would hold
    a transaction, and the saver's ``CREATE INDEX CONCURRENTLY`` waits for every transaction."""
    conn = connect(url)  # StoreUnavailableError with the usual one-line message when unreachable
    try:
        conn.row_factory = dict_row
        saver = PostgresSaver(conn)  # type: ignore[arg-type]  # a plain connection is accepted too
        latest = len(saver.MIGRATIONS) - 1
        while not _migrated(conn, latest):
            if conn.execute("SELECT pg_try_advisory_lock(%s) AS locked", (_SETUP_LOCK,)).fetchone()["locked"]:
                try:
                    saver.setup()
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
                return
            time.sleep(0.2)
    finally:
        conn.close()


class SyncCheckpointerError(NotImplementedError):
    """An async method (``ainvoke``, ``astream``, ``aget_state`` …) was called on a graph whose
    checkpointer is synchronous (:attr:`agentic_rag.app.App.graph`); the message names
    ``app.async_graph()``, the way in from an event loop. A ``NotImplementedError``, as
    LangGraph's own refusal, for callers that catch that."""


ASYNC_MISUSE = (
    "app.graph is checkpointed by the synchronous {saver}, which has no async methods (its {method} "
    "was called; ainvoke, astream and aget_state need them): on an event loop use "
    "`async with app.async_graph() as graph:` and await graph.ainvoke(...) or graph.aget_state(...) "
    "on it (the same threads), or call app.graph's sync methods (invoke, get_state)"
)


def _refused(name: str, generator: bool):
    """An async method ``name`` that raises :class:`SyncCheckpointerError` (an async generator
    when the method it replaces is one, so that ``async for`` reaches the error)."""
    if generator:

        async def refused_iteration(self, *args, **kwargs):
            raise SyncCheckpointerError(ASYNC_MISUSE.format(saver=type(self).__name__, method=name))
            yield  # pragma: no cover  # makes this an async generator

        return refused_iteration

    async def refused(self, *args, **kwargs):
        raise SyncCheckpointerError(ASYNC_MISUSE.format(saver=type(self).__name__, method=name))

    return refused


def _sync_only(saver: type[BaseCheckpointSaver]) -> type[BaseCheckpointSaver]:
    """``saver`` with every async method of LangGraph's ``BaseCheckpointSaver`` (``aget_tuple``,
    ``alist``, ``aput``, ``aput_writes``, …) raising :class:`SyncCheckpointerError` instead of a
    bare ``NotImplementedError`` that does not say what to use."""
    methods = {
        name: _refused(name, inspect.isasyncgenfunction(method))
        for name, method in inspect.getmembers(BaseCheckpointSaver)
        if inspect.iscoroutinefunction(method) or inspect.isasyncgenfunction(method)
    }
    return type(saver.__name__, (saver,), {"__doc__": saver.__doc__, "__module__": __name__, **methods})


SyncSqliteSaver = _sync_only(SqliteSaver)
"""langgraph-checkpoint-sqlite's ``SqliteSaver``; its async methods name ``app.async_graph()``."""
SyncPostgresSaver = _sync_only(PostgresSaver)
"""langgraph-checkpoint-postgres' ``PostgresSaver``; its async methods name ``app.async_graph()``."""


def open_checkpointer(settings: Settings) -> BaseCheckpointSaver:
    """The checkpointer of ``settings`` (see the module docstring); its tables are created if
    missing. It is synchronous: its async methods raise :class:`SyncCheckpointerError`, which
    names :func:`open_async_checkpointer`'s way in, ``app.async_graph()``.

    Raises:
        StoreUnavailableError: ``DATABASE_URL`` is set and the server cannot be reached.
    """
    if not settings.database_url:
        settings.ensure_data_dir()
        path = settings.checkpoint_path
        return SyncSqliteSaver(sqlite3.connect(path, check_same_thread=False))
    url = psycopg_url(settings.database_url)
    _set_up_tables(url)
    pool = ConnectionPool(
        url, min_size=1, max_size=settings.checkpoint_pool_size, kwargs=_POOL_KWARGS, open=False, timeout=30
    )
    try:
        pool.open(wait=True, timeout=10)
    except Exception as exc:  # psycopg_pool.PoolTimeout
        pool.close()
        raise StoreUnavailableError(f"cannot open the checkpoint connections to {redact(url)} ({exc})") from exc
    return SyncPostgresSaver(pool)  # type: ignore[arg-type]


def close_checkpointer(saver: BaseCheckpointSaver) -> None:
    """Close the saver's connection or connection pool."""
    saver.conn.close()  # type: ignore[attr-defined]  # sqlite3.Connection or ConnectionPool


@asynccontextmanager
async def open_async_checkpointer(settings: Settings) -> AsyncIterator[BaseCheckpointSaver]:
    """The async checkpointer of ``settings`` over the same tables as :func:`open_checkpointer`:
    ``AsyncSqliteSaver`` (aiosqlite) on the SQLite file, or ``AsyncPostgresSaver`` on a bounded
    ``AsyncConnectionPool``; closed on exit. It must be used from the event loop it was opened
    on: a sync call (``get_state``) from that loop raises ``asyncio.InvalidStateError``."""
    if not settings.database_url:
        settings.ensure_data_dir()
        path = settings.checkpoint_path
        async with aiosqlite.connect(path) as conn:
            yield AsyncSqliteSaver(conn)
        return
    url = psycopg_url(settings.database_url)
    _set_up_tables(url)
    pool = AsyncConnectionPool(url, min_size=1, max_size=settings.checkpoint_pool_size, kwargs=_POOL_KWARGS, open=False)
    await pool.open(wait=True, timeout=10)
    try:
        yield AsyncPostgresSaver(pool)  # type: ignore[arg-type]
    finally:
        await pool.close()


def thread_collection(settings: Settings, thread_id: str) -> str | None:
    """The collection the thread was last asked on (its latest checkpoint's metadata), or
    ``None``: no checkpoints yet, no such thread, or a thread written before threads recorded it.

    Raises:
        StoreUnavailableError: ``DATABASE_URL`` is set and the server cannot be reached.
    """
    if not settings.database_url and not settings.checkpoint_path.exists():
        return None
    saver = open_checkpointer(settings)
    try:
        latest = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    finally:
        close_checkpointer(saver)
    return (latest.metadata or {}).get("collection") if latest else None
