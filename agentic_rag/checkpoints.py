"""The checkpointers (langgraph-checkpoint-sqlite) over one SQLite file: the sync saver the app
runs on, and the async saver for callers on an event loop. Both use the same tables (in WAL
mode), so a thread written by one is read and resumed by the other."""

from __future__ import annotations

import sqlite3
from contextlib import asynccontextmanager
from pathlib import Path
from typing import AsyncIterator

import aiosqlite
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


def open_checkpointer(path: Path) -> SqliteSaver:
    """The SQLite checkpointer at ``path``, created if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


@asynccontextmanager
async def open_async_checkpointer(path: Path) -> AsyncIterator[AsyncSqliteSaver]:
    """The async SQLite checkpointer (``AsyncSqliteSaver`` over aiosqlite) at ``path``, created if
    missing; its connection is closed on exit. It must be used from the event loop it was opened
    on: a sync call (``get_state``) from that loop raises ``asyncio.InvalidStateError``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    async with aiosqlite.connect(path) as conn:
        yield AsyncSqliteSaver(conn)


def thread_collection(path: Path, thread_id: str) -> str | None:
    """The collection the thread at ``path`` was last asked on (its latest checkpoint's metadata),
    or ``None``: no such file or thread, or a thread written before threads recorded it."""
    if not path.exists():
        return None
    with sqlite3.connect(path) as conn:
        latest = SqliteSaver(conn).get_tuple({"configurable": {"thread_id": thread_id}})
    return (latest.metadata or {}).get("collection") if latest else None
