"""The page sketches of a collection's files (:func:`ingest.copies.page_sketch`), kept in
``rag_page_sketches`` beside the manifest, so a file that did not change is compared with the
others without being parsed again. A sketch counts only for the content hash (and the
:data:`ingest.copies.SKETCH_VERSION`) it was made from."""

from __future__ import annotations

from typing import Iterable

import psycopg

from ingest.copies import SKETCH_VERSION
from store.collections import SCHEMA_LOCK


class SketchLedger:
    """The page signatures of a collection's files (``rag_page_sketches``: collection, source
    key, content hash with :data:`SKETCH_VERSION`, signature), on ``conn``, an autocommit
    connection; a signature counts only for the content hash it was made from."""

    def __init__(self, conn: psycopg.Connection, collection: str) -> None:
        self._conn = conn
        self.collection = collection

    def create(self) -> None:
        """Create the table if missing (under the store's schema lock) and drop the rows of
        collections that no longer exist (deleting a collection does not reach this table)."""
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(%s)", (SCHEMA_LOCK,))
            self._conn.execute(
                """CREATE TABLE IF NOT EXISTS rag_page_sketches (
                       collection TEXT NOT NULL, source TEXT NOT NULL, content_hash TEXT NOT NULL,
                       sketch BYTEA NOT NULL, PRIMARY KEY (collection, source))"""
            )
        self._conn.execute(
            """DELETE FROM rag_page_sketches s
               WHERE NOT EXISTS (SELECT 1 FROM rag_collections c WHERE c.name = s.collection)"""
        )

    def sketches(self, hashes: dict[str, str]) -> dict[str, bytes]:
        """The stored signatures of the sources in ``hashes`` (source key → content hash) made
        from that content, by source key; sources without one are absent."""
        rows = self._conn.execute(
            "SELECT source, content_hash, sketch FROM rag_page_sketches WHERE collection = %s AND source = ANY(%s)",
            (self.collection, list(hashes)),
        ).fetchall()
        return {source: bytes(sketch) for source, stored, sketch in rows if stored == _versioned(hashes[source])}

    def save(self, sketches: dict[str, tuple[str, bytes]]) -> None:
        """Store signatures: source key → (content hash, :func:`page_sketch`)."""
        with self._conn.cursor() as cursor:
            cursor.executemany(
                """INSERT INTO rag_page_sketches (collection, source, content_hash, sketch) VALUES (%s, %s, %s, %s)
                   ON CONFLICT (collection, source) DO UPDATE
                   SET content_hash = EXCLUDED.content_hash, sketch = EXCLUDED.sketch""",
                [(self.collection, key, _versioned(digest), sketch) for key, (digest, sketch) in sketches.items()],
            )

    def forget_others(self, prefix: str, present: Iterable[str]) -> None:
        """Drop the signatures of sources under ``prefix`` (a folder path + separator) that are
        not in ``present``: files that left the folder."""
        self._conn.execute(
            "DELETE FROM rag_page_sketches WHERE collection = %s AND starts_with(source, %s) AND NOT source = ANY(%s)",
            (self.collection, prefix, list(present)),
        )


def _versioned(content_hash: str) -> str:
    return f"{content_hash}|{SKETCH_VERSION}"
