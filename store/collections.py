"""The collections of a database, across collections: list them (``agentic-rag collections``)
and drop one with everything it made: chunk table, BM25 index, mention graph, catalog rows."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from datetime import datetime
from typing import Iterable

import psycopg

from core.errors import CollectionNotFoundError
from core.tuning import TUNING, Tuning
from store.catalog import Catalog
from store.connection import connect
from store.lexical import LexicalIndex
from store.mentions import MentionGraph

SCHEMA_LOCK = 7_426_017
"""Advisory lock id serialising schema changes (creating and dropping collections) across processes."""


@dataclass(frozen=True)
class CollectionInfo:
    """One collection as ``agentic-rag collections`` lists it."""

    name: str
    chunks: int | None
    """Chunks its table holds; ``None`` when the table was dropped outside agentic-rag."""
    sources: int
    """Sources (files) fully ingested, by the manifest."""
    embedding_model: str
    dimension: int
    last_ingest: datetime | None
    """When the last ingest started (for collections from before that was recorded: when its
    last source was written)."""
    finished: bool | None
    """Whether that ingest finished; ``None`` when not recorded (an ingest before this was)."""


def list_collections(conn: psycopg.Connection) -> list[CollectionInfo]:
    """Every collection of the database, by name; none when nothing was ever ingested.

    Args:
        conn: an autocommit connection to the database (see :func:`store.connection.connect`).
    """
    if conn.execute("SELECT to_regclass('rag_collections')").fetchone()[0] is None:
        return []
    Catalog(conn, "").create()  # collections from before the ingest times were recorded gain the columns
    rows = conn.execute(
        """SELECT c.name, c.table_name, c.embedding_model, c.dimension, c.ingest_started_at,
                  c.ingest_finished_at, count(s.source), max(s.ingested_at)
           FROM rag_collections c LEFT JOIN rag_sources s ON s.collection = c.name
           GROUP BY c.name ORDER BY c.name"""
    ).fetchall()
    found = []
    for name, table, model, dimension, started, finished, sources, last_source in rows:
        held = conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is not None
        chunks = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] if held else None
        done = None if started is None else finished is not None and finished >= started
        found.append(CollectionInfo(name, chunks, sources, model, dimension, started or last_source, done))
    return found


@dataclass(frozen=True)
class UnfinishedIngest:
    """A collection whose last ingest did not finish (:func:`unfinished_ingests`)."""

    collection: str
    started: datetime
    """When that ingest started."""
    command: str
    """The ingest command that continues it (:meth:`store.catalog.Catalog.rebuild_command`)."""


def unfinished_ingests(url: str, names: Iterable[str | None]) -> list[UnfinishedIngest]:
    """Of the collections ``names``, those whose last ingest started and did not finish: stopped
    by Ctrl-C, ``kill -9`` or a crash (or still running), so they answer from part of their
    documents. Running the same ingest again continues it: unchanged files are skipped.

    Args:
        url: the database (see :func:`store.connection.connect`).
        names: collection names; ``None`` and names of no collection are passed over.

    Returns:
        The unfinished ones, by name.

    Raises:
        StoreUnavailableError: the database cannot be reached.
    """
    wanted = sorted({name for name in names if name})
    if not wanted:
        return []
    conn = connect(url)
    try:
        if conn.execute("SELECT to_regclass('rag_collections')").fetchone()[0] is None:
            return []
        Catalog(conn, "").create()  # collections from before the ingest times were recorded gain the columns
        rows = conn.execute(
            """SELECT name, ingest_started_at FROM rag_collections
               WHERE name = ANY(%s) AND ingest_started_at IS NOT NULL
                 AND (ingest_finished_at IS NULL OR ingest_finished_at < ingest_started_at)
               ORDER BY name""",
            (wanted,),
        ).fetchall()
        return [UnfinishedIngest(name, started, Catalog(conn, name).rebuild_command()) for name, started in rows]
    finally:
        conn.close()


def collections_at(url: str) -> list[CollectionInfo]:
    """:func:`list_collections` of the database at ``url``.

    Raises:
        StoreUnavailableError: the database cannot be reached.
    """
    conn = connect(url)
    try:
        return list_collections(conn)
    finally:
        conn.close()


def drop_tables(conn: psycopg.Connection, collection: str, tuning: Tuning = TUNING) -> None:
    """Drop a collection: its chunk table, BM25 index, mention graph and catalog rows, in one
    transaction, one schema change at a time across processes; nothing is left to drop by hand.
    A collection that does not exist is no error.

    Args:
        conn: an autocommit connection to the database.
        collection: the collection's name (as registered: letters, digits, ``_``).
        tuning: the constants its index classes are built with.
    """
    table = f"chunks_{collection}"
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
        LexicalIndex(conn, table, tuning).drop()
        MentionGraph(conn, table, tuning).drop()
        conn.execute(f"DROP TABLE IF EXISTS {table}")
        Catalog(conn, collection).forget()


def delete_collection(url: str, name: str, tuning: Tuning = TUNING) -> CollectionInfo:
    """Delete collection ``name`` of the database at ``url`` (:func:`drop_tables`).

    Returns:
        The collection as it was before.

    Raises:
        CollectionNotFoundError: no collection has that name (the existing ones are named).
        StoreUnavailableError: the database cannot be reached.
    """
    conn = connect(url)
    try:
        found = {info.name: info for info in list_collections(conn)}
        if name not in found:
            near = difflib.get_close_matches(name, list(found), n=1)
            raise CollectionNotFoundError(
                f"no collection '{name}' (existing: {', '.join(found) or 'none'})"
                + (f"; did you mean {near[0]}?" if near else "")
            )
        drop_tables(conn, name, tuning)
    finally:
        conn.close()
    return found[name]
