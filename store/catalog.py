"""The catalog: which collections exist (with their embedding model and when an ingest last
started and finished) and which sources each holds (the ingest manifest), in two tables shared
by every collection of a database."""

from __future__ import annotations

import os
import shlex

import psycopg


class Catalog:
    """The catalog rows of ``collection``, on ``conn`` (autocommit connection)."""

    def __init__(self, conn: psycopg.Connection, collection: str) -> None:
        self._conn = conn
        self.collection = collection

    def create(self) -> None:
        """Create the catalog tables if missing."""
        self._conn.execute(
            """CREATE TABLE IF NOT EXISTS rag_collections (
                   name TEXT PRIMARY KEY, table_name TEXT NOT NULL,
                   embedding_model TEXT NOT NULL, dimension INT NOT NULL,
                   created_at TIMESTAMPTZ NOT NULL DEFAULT now());
               CREATE TABLE IF NOT EXISTS rag_sources (
                   collection TEXT NOT NULL, source TEXT NOT NULL, content_hash TEXT NOT NULL,
                   chunks INT NOT NULL, ingested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                   PRIMARY KEY (collection, source));
               ALTER TABLE rag_collections ADD COLUMN IF NOT EXISTS ingest_started_at TIMESTAMPTZ,
                   ADD COLUMN IF NOT EXISTS ingest_finished_at TIMESTAMPTZ"""
        )

    def start_ingest(self) -> None:
        """Record that an ingest into the collection starts now (see :meth:`finish_ingest`)."""
        self._conn.execute(
            "UPDATE rag_collections SET ingest_started_at = clock_timestamp() WHERE name = %s", (self.collection,)
        )

    def finish_ingest(self) -> None:
        """Record that the ingest started last has finished: every file written, the mention
        graph and indexes brought in step. An ingest stopped before (Ctrl-C, kill -9, a crash)
        leaves its start later than its finish (:attr:`CollectionInfo.finished` is ``False``)."""
        self._conn.execute(
            "UPDATE rag_collections SET ingest_finished_at = clock_timestamp() WHERE name = %s", (self.collection,)
        )

    def version(self) -> str | None:
        """A value that changes whenever the collection is made again, an ingest into it starts or
        finishes, or a source is recorded or forgotten: a process that keeps reads of the
        collection (a warm service) reads again when it changed. ``None``: not registered."""
        row = self._conn.execute(
            """SELECT c.created_at, c.ingest_started_at, c.ingest_finished_at,
                      (SELECT count(*) FROM rag_sources s WHERE s.collection = c.name),
                      (SELECT max(ingested_at) FROM rag_sources s WHERE s.collection = c.name)
               FROM rag_collections c WHERE c.name = %s""",
            (self.collection,),
        ).fetchone()
        return None if row is None else repr(row)

    def embedding(self) -> tuple[str, int] | None:
        """(embedding model id, dimension) the collection was built with; ``None`` when it is
        not registered."""
        row = self._conn.execute(
            "SELECT embedding_model, dimension FROM rag_collections WHERE name = %s", (self.collection,)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def collections(self) -> list[str]:
        """Every registered collection, sorted."""
        return [r[0] for r in self._conn.execute("SELECT name FROM rag_collections ORDER BY name").fetchall()]

    def register(self, table: str, model_id: str, dimension: int) -> None:
        """Register the collection (its chunk table and embedding model)."""
        self._conn.execute(
            "INSERT INTO rag_collections (name, table_name, embedding_model, dimension) VALUES (%s, %s, %s, %s)",
            (self.collection, table, model_id, dimension),
        )

    def source_hash(self, source: str) -> str | None:
        """Content hash recorded when ``source`` was last fully ingested, or ``None``."""
        row = self._conn.execute(
            "SELECT content_hash FROM rag_sources WHERE collection = %s AND source = %s", (self.collection, source)
        ).fetchone()
        return row[0] if row else None

    def source_hashes(self) -> dict[str, str]:
        """Every fully ingested source's recorded content hash, by source key (one query, for an
        ingest deciding many files)."""
        rows = self._conn.execute(
            "SELECT source, content_hash FROM rag_sources WHERE collection = %s", (self.collection,)
        ).fetchall()
        return dict(rows)

    def sources_under(self, prefix: str) -> list[str]:
        """Keys of the fully ingested sources that start with ``prefix`` (a folder path + separator)."""
        rows = self._conn.execute(
            "SELECT source FROM rag_sources WHERE collection = %s AND starts_with(source, %s) ORDER BY source",
            (self.collection, prefix),
        ).fetchall()
        return [r[0] for r in rows]

    def unbacked(self, table: str) -> set[str]:
        """Sources whose recorded chunk count the chunk table ``table`` no longer holds: chunks
        deleted behind the manifest's back, or the table dropped and rebuilt empty. Their next
        ingest must write them again instead of trusting the content hash."""
        rows = self._conn.execute(
            f"""WITH held AS (SELECT source, count(*) AS n FROM {table} GROUP BY source)
                SELECT s.source FROM rag_sources s LEFT JOIN held USING (source)
                WHERE s.collection = %s AND s.chunks <> coalesce(held.n, 0)""",
            (self.collection,),
        ).fetchall()
        return {r[0] for r in rows}

    def rebuild_command(self) -> str:
        """The command that ingests the collection's sources again: ``agentic-rag ingest PATH
        --collection NAME``, PATH being the folder (or file) holding every source when there is one."""
        paths = [s for s in self.sources_under("") if os.path.isabs(s)]
        common = os.path.commonpath(paths) if paths else os.sep
        target = shlex.quote(common) if common != os.sep else "PATH"
        return f"agentic-rag ingest {target} --collection {self.collection}"

    def record_source(self, source: str, content_hash: str, chunks: int) -> None:
        """Record ``source`` as fully ingested (written last, after its chunks)."""
        self._conn.execute(
            """INSERT INTO rag_sources (collection, source, content_hash, chunks)
               VALUES (%s, %s, %s, %s)
               ON CONFLICT (collection, source) DO UPDATE
               SET content_hash = EXCLUDED.content_hash, chunks = EXCLUDED.chunks, ingested_at = now()""",
            (self.collection, source, content_hash, chunks),
        )

    def forget_source(self, source: str) -> None:
        """Drop ``source`` from the manifest."""
        self._conn.execute("DELETE FROM rag_sources WHERE collection = %s AND source = %s", (self.collection, source))

    def forget(self) -> None:
        """Drop the collection's registration and its manifest."""
        self._conn.execute("DELETE FROM rag_sources WHERE collection = %s", (self.collection,))
        self._conn.execute("DELETE FROM rag_collections WHERE name = %s", (self.collection,))
