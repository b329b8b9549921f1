"""Dense search over a chunk table's ``embedding`` column (pgvector), and its HNSW index.

Below ``tuning.hnsw_min_chunks`` chunks the search is exact (a scan is a few milliseconds). From
there on the collection gets a pgvector HNSW index (Malkov & Yashunin 2018, "Efficient and robust
approximate nearest neighbor search using Hierarchical Navigable Small World graphs"), built once
after a bulk load (:meth:`VectorIndex.ensure`) rather than grown row by row, and kept up to date by
PostgreSQL on later writes. Each query runs with ``hnsw.ef_search`` at least ``k`` and pgvector's
iterative scan (``hnsw.iterative_scan = strict_order``, pgvector ≥ 0.8), so a filter that rejects
most of the nearest neighbours still returns ``k`` chunks, in exact distance order.
"""

from __future__ import annotations

import threading
from typing import Any

from core.errors import EmbeddingMismatchError
from store.connection import TableAddon
from store.filters import ChunkFilter


def require_dimension(size: int, model_id: str, dimension: int, collection: str) -> None:
    """Check that a vector of ``size`` numbers from embedding model ``model_id`` fits collection
    ``collection``, whose vectors have ``dimension``: pgvector would refuse the comparison
    ("different vector dimensions") as a raw ``DataException`` mid-run. The collection's model
    and dimension are checked when it is opened; this catches a model whose vectors changed size
    behind the same name (a served model swapped, a ``dimensions`` setting changed).

    Args:
        size: the vector's length.
        model_id: the embedding model's recorded name.
        dimension: the collection's vector dimension.
        collection: the collection's name, for the message.

    Raises:
        EmbeddingMismatchError: ``size`` is not ``dimension``; says how to go on.
    """
    if size != dimension:
        raise EmbeddingMismatchError(
            f"embedding model {model_id} gave a {size}-d vector, but collection '{collection}' holds "
            f"{dimension}-d vectors (what the model gave when the collection was built): the model changed "
            "behind its name. Use the model the collection was built with, or rebuild the collection with this "
            f"one (agentic-rag collections delete {collection}, then ingest its documents again), or ingest "
            "into another --collection (--embedding picks the model)"
        )


class VectorIndex(TableAddon):
    """Dense search and the HNSW index of chunk table ``table``, on ``conn`` (autocommit)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lock = threading.Lock()
        self._ef = 0

    @property
    def name(self) -> str:
        return f"{self.table}_embedding_hnsw"

    def exists(self) -> bool:
        """Whether the HNSW index exists."""
        return self._conn.execute("SELECT to_regclass(%s)", (self.name,)).fetchone()[0] is not None

    def ensure(self, chunks: int, min_chunks: int | None = None) -> bool:
        """Build the HNSW index (cosine distance; ``tuning.hnsw_m``, ``tuning.hnsw_ef_construction``)
        when the collection holds at least ``min_chunks`` (default ``tuning.hnsw_min_chunks``)
        ``chunks`` and has none yet. Returns whether it was built now."""
        threshold = self.tuning.hnsw_min_chunks if min_chunks is None else min_chunks
        if chunks < threshold or self.exists():
            return False
        with self.serialised("hnsw"):
            if self.exists():  # another process built it while this one waited
                return False
            self._conn.execute(f"SET LOCAL maintenance_work_mem = '{self.tuning.hnsw_build_memory_mb}MB'")
            self._conn.execute(
                f"""CREATE INDEX IF NOT EXISTS {self.name} ON {self.table} USING hnsw (embedding vector_cosine_ops)
                    WITH (m = {int(self.tuning.hnsw_m)}, ef_construction = {int(self.tuning.hnsw_ef_construction)})"""
            )
        return True

    def drop_index(self) -> None:
        """Drop the HNSW index (searches become exact scans)."""
        with self.serialised("hnsw"):
            self._conn.execute(f"DROP INDEX IF EXISTS {self.name}")

    def search(self, vector: list[float], k: int, where: ChunkFilter | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (chunk id, cosine similarity) by distance to ``vector``, best first; only
        chunks ``where`` allows. Approximate (HNSW, ``ef_search`` = max(``tuning.hnsw_ef_search``,
        ``k``)) when the index exists, exact otherwise."""
        condition, params = (where or ChunkFilter()).to_sql("c")
        ef = max(int(self.tuning.hnsw_ef_search), int(k))
        with self._lock:  # the session settings and the query, as one step for the threads sharing the connection
            if self._ef != ef:  # session settings of this connection (SET LOCAL would need a transaction block)
                self._conn.execute(f"SET hnsw.ef_search = {ef}; SET hnsw.iterative_scan = strict_order")
                self._ef = ef
            rows = self._conn.execute(
                f"""SELECT c.chunk_id, 1 - (c.embedding <=> %(v)s::vector) FROM {self.table} c
                    WHERE {condition} ORDER BY c.embedding <=> %(v)s::vector LIMIT %(k)s""",
                {"v": str(vector), "k": k, **params},
            ).fetchall()
        return [(cid, float(similarity)) for cid, similarity in rows]
