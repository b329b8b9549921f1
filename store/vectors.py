"""Dense search over a chunk table's ``embedding`` column (pgvector), and its HNSW index.

Below ``tuning.hnsw_min_chunks`` chunks the search is exact (a scan is a few milliseconds). From
there on the collection gets a pgvector HNSW index (Malkov & Yashunin 2018, "Efficient and robust
approximate nearest neighbor search using Hierarchical Navigable Small World graphs"), built once
after a bulk load (:meth:`VectorIndex.ensure`) rather than grown row by row, and kept up to date by
PostgreSQL on later writes. The index holds the vectors at half precision (pgvector's ``halfvec``,
an expression index on ``embedding::halfvec(d)``): half the size of full-precision vectors, so a
million chunks' graph fits in memory, for distances that differ from full precision's in the
fourth digit; the column keeps full precision, and the similarity returned is computed from it.
Each query runs with ``hnsw.ef_search`` at least ``k`` and pgvector's iterative scan
(``hnsw.iterative_scan = strict_order``, pgvector ≥ 0.8), so a filter that rejects most of the
nearest neighbours still returns ``k`` chunks, in index distance order.

A collection indexed by an earlier release keeps its full-precision index (named without
``half``): its searches order by full-precision distance, which that index serves, until a load
larger than the collection drops it and the half-precision one is built. Exact scans (no index)
compare at full precision too: casting every row to ``halfvec`` would cost more than it saves.
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
        self._dimension = 0

    @property
    def name(self) -> str:
        """The half-precision HNSW index's name."""
        return f"{self.table}_embedding_half_hnsw"

    @property
    def legacy_name(self) -> str:
        """The name of the full-precision HNSW index earlier releases built."""
        return f"{self.table}_embedding_hnsw"

    def _exists(self, name: str) -> bool:
        return self._conn.execute("SELECT to_regclass(%s)", (name,)).fetchone()[0] is not None

    def exists(self) -> bool:
        """Whether the collection has an HNSW index (half precision, or an earlier release's)."""
        return self._exists(self.name) or self._exists(self.legacy_name)

    def dimension(self) -> int:
        """The dimension of the table's vectors, read from its column once."""
        if not self._dimension:
            (self._dimension,) = self._conn.execute(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = %s::regclass AND attname = 'embedding'",
                (self.table,),
            ).fetchone()
        return int(self._dimension)

    def half(self) -> str:
        """The half-precision type of the table's vectors, ``halfvec(d)``."""
        return f"halfvec({self.dimension()})"

    def build_memory_mb(self, chunks: int) -> int:
        """``maintenance_work_mem`` for building the index over ``chunks`` chunks, MB: room for
        pgvector's in-memory graph — per chunk the half-precision vector, ``2·m`` layer-0
        neighbours of 16 bytes and the element's own ~200 (1,226 bytes measured at 256-d,
        ``m`` 16) — capped at ``tuning.hnsw_build_memory_mb``. A graph that does not fit
        builds several times slower; a parallel build reserves all of it in shared memory, so
        a small collection asks for little."""
        need = chunks * (2 * self.dimension() + 32 * int(self.tuning.hnsw_m) + 256) * 1.1 / 2**20
        return int(min(max(need, 64), self.tuning.hnsw_build_memory_mb))

    def ensure(self, chunks: int, min_chunks: int | None = None) -> bool:
        """Build the HNSW index (cosine distance on half-precision vectors; ``tuning.hnsw_m``,
        ``tuning.hnsw_ef_construction``, ``maintenance_work_mem`` :meth:`build_memory_mb`,
        PostgreSQL's ``max_parallel_maintenance_workers``) when the collection holds at least
        ``min_chunks`` (default ``tuning.hnsw_min_chunks``) ``chunks`` and has none yet.

        Returns:
            Whether it was built now.
        """
        threshold = self.tuning.hnsw_min_chunks if min_chunks is None else min_chunks
        if chunks < threshold or self.exists():
            return False
        with self.serialised("hnsw"):
            if self.exists():  # another process built it while this one waited
                return False
            self._conn.execute(f"SET LOCAL maintenance_work_mem = '{self.build_memory_mb(chunks)}MB'")
            self._conn.execute(
                f"""CREATE INDEX IF NOT EXISTS {self.name} ON {self.table}
                    USING hnsw ((embedding::{self.half()}) halfvec_cosine_ops)
                    WITH (m = {int(self.tuning.hnsw_m)}, ef_construction = {int(self.tuning.hnsw_ef_construction)})"""
            )
        return True

    def drop_index(self) -> None:
        """Drop the HNSW index, and an earlier release's (searches become exact scans)."""
        with self.serialised("hnsw"):
            self._conn.execute(f"DROP INDEX IF EXISTS {self.name}, {self.legacy_name}")

    def search(self, vector: list[float], k: int, where: ChunkFilter | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (chunk id, cosine similarity) by distance to ``vector``, best first; only
        chunks ``where`` allows. Approximate (HNSW, ``ef_search`` = max(``tuning.hnsw_ef_search``,
        ``k``)) when the index exists, exact otherwise; ordered by half-precision distance on the
        half-precision index, by full-precision distance otherwise (an exact scan, an earlier
        release's index). The similarity is computed at full precision."""
        condition, params = (where or ChunkFilter()).to_sql("c")
        ef = max(int(self.tuning.hnsw_ef_search), int(k))
        order = "c.embedding <=> %(v)s::vector"  # exact scans and an earlier release's index: full precision
        if self._exists(self.name):
            order = f"c.embedding::{self.half()} <=> %(v)s::{self.half()}"
        with self._lock:  # the session settings and the query, as one step for the threads sharing the connection
            if self._ef != ef:  # session settings of this connection (SET LOCAL would need a transaction block)
                self._conn.execute(f"SET hnsw.ef_search = {ef}; SET hnsw.iterative_scan = strict_order")
                self._ef = ef
            rows = self._conn.execute(
                f"""SELECT c.chunk_id, 1 - (c.embedding <=> %(v)s::vector) FROM {self.table} c
                    WHERE {condition} ORDER BY {order} LIMIT %(k)s""",
                {"v": str(vector), "k": k, **params},
            ).fetchall()
        return [(cid, float(similarity)) for cid, similarity in rows]
