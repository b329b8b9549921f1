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
