"""Bulk writes of a collection's chunks: batched embedding, ``COPY``, one transaction per batch.

Chunks of several sources are written together (a folder of small files fills a batch as one
large file does). Each batch is embedded in one call, streamed into a session-local staging table
with ``COPY`` and moved into the chunk table by one ``INSERT … SELECT … ON CONFLICT DO NOTHING``,
so the BM25 statement trigger (:mod:`store.lexical`) indexes the whole batch in one set-based
statement, in the same transaction. The next batch is embedded on a worker thread while
PostgreSQL writes the current one (the model and the server overlap on two cores).

The guarantees of one-by-one writes hold: chunk ids are stable (:func:`store.records.chunk_id`),
chunks already stored are neither embedded nor written again, stale chunks are deleted after the
new ones are in, and each source's manifest row is written last, with the deletions, in one
transaction: a run killed part-way leaves the old manifest, and the next ingest redoes the source.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable

import numpy as np
import psycopg
from langchain_core.documents import Document
from pgvector.psycopg.vector import register_vector_info
from psycopg.types import TypeInfo
from psycopg.types.json import Jsonb

from core.tuning import TUNING, Tuning
from providers.embeddings import EmbeddingModel
from store.catalog import Catalog
from store.records import SourceUpdate, chunk_id
from store.vectors import require_dimension

COLUMNS = ("chunk_id", "content", "embedding", "source", "title", "chunk_index", "version", "langchain_metadata")
"""The chunk table's columns (langchain-postgres' layout: id, content, embedding, the metadata
columns, then the other metadata as JSON)."""


@dataclass
class SourceChunks:
    """One source to write: its key, the hash of its content and its chunks (``metadata`` holds
    ``title`` and ``chunk_index``, optionally ``version``)."""

    source: str
    content_hash: str
    documents: list[Document]


@dataclass
class _Plan:
    item: SourceChunks
    unique: dict[str, Document]
    new: list[Document]
    stale: list[str]


def embedding_text(doc: Document) -> str:
    """What a chunk is embedded as: its title and text together (the title often names the
    entity the text is about, as in Wikipedia paragraphs); the text is stored alone."""
    return f"{doc.metadata.get('title') or ''}\n{doc.page_content}".strip()


class ChunkWriter:
    """Writes sources into chunk table ``table`` on ``conn`` (autocommit), embedding with
    ``embedding``; batches of ``tuning.ingest_batch`` chunks."""

    def __init__(
        self, conn: psycopg.Connection, table: str, catalog: Catalog, embedding: EmbeddingModel, tuning: Tuning = TUNING
    ) -> None:
        self._conn = conn
        self.table = table
        self.catalog = catalog
        self.embedding = embedding
        self.tuning = tuning
        self._staged: list[str] | None = None
        """The staging table's column types (for the binary ``COPY``), once it exists."""

    def _plan(self, items: list[SourceChunks]) -> list[_Plan]:
        rows = self._conn.execute(
            f"SELECT source, chunk_id FROM {self.table} WHERE source = ANY(%s)", ([i.source for i in items],)
        ).fetchall()
        existing: dict[str, set[str]] = {}
        for source, cid in rows:
            existing.setdefault(source, set()).add(cid)
        plans = []
        for item in items:
            unique: dict[str, Document] = {}
            for doc in item.documents:
                doc_id = chunk_id(item.source, doc.metadata.get("title", ""), doc.page_content)
                if doc_id not in unique:
                    metadata = {**doc.metadata, "source": item.source}
                    unique[doc_id] = Document(id=doc_id, page_content=doc.page_content, metadata=metadata)
            held = existing.get(item.source, set())
            new = [doc for doc_id, doc in unique.items() if doc_id not in held]
            plans.append(_Plan(item, unique, new, sorted(held - unique.keys())))
        return plans

    def _embed(self, batch: list[Document]) -> np.ndarray:
        texts = [embedding_text(d) for d in batch]
        vectors = self.embedding.embeddings.embed_documents(texts)
        for size in sorted({len(v) for v in vectors}):  # COPY would fail on the batch with a raw DataException
            require_dimension(size, self.embedding.model_id, self.embedding.dimension, self.catalog.collection)
        return np.asarray(vectors, dtype=np.float32)

    def _copy(self, batch: list[Document], vectors: np.ndarray) -> None:
        t, conn = self.table, self._conn
        with conn.transaction():
            # the batch's commit need not wait for its WAL flush: a crash loses the last batches, never their order,
            # and the manifest row written after them (write, a synchronous commit) says the source is unfinished
            conn.execute("SET LOCAL synchronous_commit = off")
            if self._staged is None:  # one staging table per connection, emptied at each commit
                stage = f"CREATE TEMP TABLE IF NOT EXISTS stage_{t} (LIKE {t} INCLUDING IDENTITY)"  # n numbers itself
                conn.execute(f"{stage} ON COMMIT DELETE ROWS")
                self._staged = [
                    conn.execute(
                        "SELECT format_type(atttypid, NULL) FROM pg_attribute WHERE attrelid = %s::regclass "
                        "AND attname = %s",
                        (f"stage_{t}", column),
                    ).fetchone()[0]
                    for column in COLUMNS
                ]
            # binary COPY: vectors go as float32 bytes (pgvector's binary format, no text to print and parse)
            with conn.cursor() as cur:
                register_vector_info(cur, TypeInfo.fetch(conn, "vector"))  # this cursor only
                with cur.copy(f"COPY stage_{t} ({', '.join(COLUMNS)}) FROM STDIN (FORMAT BINARY)") as copy:
                    copy.set_types(self._staged)
                    for doc, vector in zip(batch, vectors, strict=True):
                        meta = doc.metadata
                        extra = {k: v for k, v in meta.items() if k not in COLUMNS}
                        copy.write_row(
                            (doc.id, doc.page_content, vector, meta["source"], meta.get("title"))
                            + (meta.get("chunk_index"), meta.get("version"), Jsonb(extra))
                        )
            conn.execute(
                f"INSERT INTO {t} ({', '.join(COLUMNS)}) SELECT {', '.join(COLUMNS)} FROM stage_{t} "
                "ON CONFLICT (chunk_id) DO NOTHING"
            )

    def write(self, items: list[SourceChunks], on_progress: Callable[[int], None] | None = None) -> list[SourceUpdate]:
        """Make the collection hold exactly each item's chunks for its source (see the module
        docstring for the order of writes).

        Args:
            items: the sources, each once.
            on_progress: called with the number of chunks written after each batch.

        Returns:
            One :class:`SourceUpdate` per item, in order.

        Raises:
            psycopg.DataError: PostgreSQL refused a chunk's text (nothing of its batch is written).
            EmbeddingMismatchError: the model gave vectors of another size than the collection's
                (nothing of the batch is written).
        """
        plans = self._plan(items)
        new = [doc for plan in plans for doc in plan.new]
        size = self.tuning.ingest_batch
        batches = [new[start : start + size] for start in range(0, len(new), size)]
        with ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(self._embed, batches[0]) if batches else None
            for number, batch in enumerate(batches):
                vectors = pending.result()
                if number + 1 < len(batches):
                    pending = pool.submit(self._embed, batches[number + 1])
                self._copy(batch, vectors)
                if on_progress:
                    on_progress(len(batch))
        t = self.table
        stale = [cid for plan in plans for cid in plan.stale]
        # The version is the document's: unchanged chunks of a re-dated document take the new one.
        versions = [
            (p.item.source, p.item.documents[0].metadata.get("version") if p.item.documents else None) for p in plans
        ]
        with self._conn.transaction():
            if stale:
                self._conn.execute(f"DELETE FROM {t} WHERE chunk_id = ANY(%s)", (stale,))
            self._conn.execute(
                f"""UPDATE {t} c SET version = u.version FROM unnest(%s::text[], %s::text[]) AS u(source, version)
                    WHERE c.source = u.source AND c.version IS DISTINCT FROM u.version""",
                ([s for s, _ in versions], [v for _, v in versions]),
            )
            for plan in plans:
                self.catalog.record_source(plan.item.source, plan.item.content_hash, len(plan.unique))
        return [SourceUpdate(p.item.source, len(p.new), len(p.stale)) for p in plans]
