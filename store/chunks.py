"""The chunk store: one PostgreSQL table per collection (langchain-postgres' ``PGVectorStore``
layout), written in bulk (:mod:`store.writer`), searched densely through pgvector
(:mod:`store.vectors`), lexically by a BM25 index (:mod:`store.lexical`) and by literal names
(:mod:`store.names`), with an entity-mention graph (:mod:`store.mentions`) beside it.

Hybrid retrieval fuses a dense ranking (pgvector cosine distance) with the BM25 ranking by
weighted reciprocal rank fusion (:mod:`store.fusion`), reported as a 0–1 relevance.
"""

from __future__ import annotations

import difflib
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable

import psycopg
from psycopg.pq import TransactionStatus

from core.errors import CollectionNotFoundError, EmbeddingMismatchError
from core.text import exact_names
from core.tuning import TUNING, Tuning
from providers.embeddings import EmbeddingModel
from store.catalog import Catalog
from store.collections import SCHEMA_LOCK, drop_tables
from store.connection import connect, sqlalchemy_url
from store.filters import ChunkFilter
from store.fusion import by_score, normalised, weighted_rrf
from store.lexical import LexicalIndex
from store.mentions import GraphUpdate, MentionGraph
from store.names import NameIndex
from store.records import Chunk, SourceUpdate, chunk_id
from store.vectors import VectorIndex, require_dimension
from store.writer import ChunkWriter, SourceChunks

__all__ = ["Chunk", "ChunkStore", "SourceChunks", "SourceUpdate", "chunk_id"]


class ChunkStore:
    """Chunks of one collection: write, delete, and hybrid search.

    Use :meth:`open`; the constructor expects an already-checked connection.
    """

    def __init__(
        self,
        url: str,
        collection: str,
        embedding: EmbeddingModel,
        conn: psycopg.Connection,
        create: bool = True,
        tuning: Tuning = TUNING,
    ):
        self.url = url
        self.tuning = tuning
        self.collection = collection
        self.embedding = embedding
        self.table = f"chunks_{collection}"
        self._bind(conn)
        self.created = self._ensure_collection(create)
        """Whether opening created the collection (it was not registered)."""

    def _bind(self, conn: psycopg.Connection) -> None:
        self._conn = conn
        self.catalog = Catalog(conn, self.collection)
        """The collection's registration and its ingested sources (the manifest)."""
        self.lexical = LexicalIndex(conn, self.table, self.tuning)
        """The collection's BM25 index (maintained by statement triggers on the chunk table)."""
        self.names = NameIndex(conn, self.table, self.tuning)
        """Literal lookups of exact names and of the entries defining a term."""
        self.vectors = VectorIndex(conn, self.table, self.tuning)
        """Dense search and the collection's HNSW index."""
        self.graph = MentionGraph(conn, self.table, self.tuning)
        """The collection's entity-mention graph (updated by the ingest pipeline)."""
        self.writer = ChunkWriter(conn, self.table, self.catalog, self.embedding, self.tuning)
        """Bulk writes of sources' chunks."""

    def recover(self) -> None:
        """Make the store usable again after an interruption (Ctrl-C) that may have landed
        mid-statement — in a ``COPY`` or a batch insert: a connection left with a command in
        progress or in a failed transaction is closed (PostgreSQL rolls back what it held) and
        the store continues on a new one. An idle connection is kept.

        Raises:
            StoreUnavailableError: the server cannot be reached for the new connection.
        """
        if not self._conn.closed and self._conn.info.transaction_status == TransactionStatus.IDLE:
            return
        self._conn.close()
        self._bind(connect(self.url))

    @classmethod
    def open(
        cls, url: str, collection: str, embedding: EmbeddingModel, create: bool = True, tuning: Tuning = TUNING
    ) -> "ChunkStore":
        """Connect, create the schema if needed and check the collection's embedding model.

        Args:
            url: ``postgresql://`` URL of a server with the pgvector extension available.
            collection: collection name (letters, digits, ``_``).
            embedding: the model used to embed chunks and queries.
            create: create the collection when it does not exist (ingestion); when ``False``
                (questions), a missing collection is an error.
            tuning: the fusion and BM25 constants (and the mention graph's).

        Raises:
            StoreUnavailableError: the server cannot be reached, or the URL is not PostgreSQL's.
            EmbeddingMismatchError: the collection was built with another model or dimension.
            CollectionNotFoundError: ``create`` is ``False`` and the collection does not exist.
        """
        conn = connect(url)
        try:
            return cls(url, collection, embedding, conn, create, tuning)
        except BaseException:
            conn.close()
            raise

    def _ensure_collection(self, create: bool) -> bool:
        conn = self._conn
        conn.execute("SELECT pg_advisory_lock(%s)", (SCHEMA_LOCK,))
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            self.catalog.create()
            row = self.catalog.embedding()
            if row is not None:
                model, dimension = row
                if (model, dimension) != (self.embedding.model_id, self.embedding.dimension):
                    raise EmbeddingMismatchError(
                        f"collection '{self.collection}' was built with {model} ({dimension}-d) but "
                        f"this run embeds with {self.embedding.model_id} "
                        f"({self.embedding.dimension}-d); use --embedding matching the collection, "
                        "or ingest into another --collection"
                    )
                if conn.execute("SELECT to_regclass(%s)", (self.table,)).fetchone()[0] is not None:
                    self.graph.create_schema()  # collections made before the graph existed gain it
                    conn.execute(f"ALTER TABLE {self.table} ADD COLUMN IF NOT EXISTS version TEXT")  # and provenance
                    if not self.lexical.current():  # an earlier layout, or emptied by a crash: index again
                        self.lexical.rebuild()
                    self.lexical.ensure_indexes()  # a first load stopped before finish_load left them unbuilt
                    self.names.ensure_index()  # collections made before that index gain it
                    return False
                if not create:  # dropped by hand: ingest rebuilds it below, the manifest then counts as unbacked
                    raise CollectionNotFoundError(
                        f"collection '{self.collection}' has lost its chunk table {self.table} (dropped outside "
                        f"agentic-rag); rebuild it by ingesting its documents again: {self.catalog.rebuild_command()}"
                    )
            elif not create:
                names = self.catalog.collections()
                near = difflib.get_close_matches(self.collection, names, n=1) or names[: len(names) == 1]
                meant = f"did you mean --collection {near[0]}? Or " if near else ""
                raise CollectionNotFoundError(
                    f"no collection '{self.collection}' (existing: {', '.join(names) or 'none'}); "
                    f"{meant}ingest documents first: agentic-rag ingest PATH --collection {self.collection}"
                )
            # A crash between creating the table and registering it, or a dropped table, leaves orphans: start clean.
            self.lexical.drop()
            self.graph.drop()
            from langchain_postgres import Column, PGEngine  # with SQLAlchemy, ~0.4 s: only to make a collection

            engine = PGEngine.from_connection_string(sqlalchemy_url(self.url))  # langchain-postgres' layout
            engine.init_vectorstore_table(
                self.table,
                self.embedding.dimension,
                id_column=Column("chunk_id", "TEXT", nullable=False),
                metadata_columns=[
                    Column("source", "TEXT"),
                    Column("title", "TEXT"),
                    Column("chunk_index", "INTEGER"),
                    Column("version", "TEXT"),
                ],
                overwrite_existing=True,
            )
            engine._run_as_sync(engine.close())
            with conn.transaction():
                self.lexical.create()
                self.names.ensure_index()
                self.graph.create_schema()
                if row is None:
                    self.catalog.register(self.table, self.embedding.model_id, self.embedding.dimension)
            return row is None
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (SCHEMA_LOCK,))

    def replace_sources(
        self, items: list[SourceChunks], on_progress: Callable[[int], None] | None = None
    ) -> list[SourceUpdate]:
        """Make the collection hold exactly each item's chunks for its source, in batches: new
        chunks (title and text embedded together) are written first, by ``COPY``, one transaction
        per batch; stale ones are deleted and each source's manifest row written last, together.
        A run killed part-way leaves the old manifest, so the next ingest of the source redoes
        the work instead of trusting a half-written state. Chunks whose id (source + content
        hash) is already stored are not embedded again (:class:`store.writer.ChunkWriter`).

        Returns:
            One update per item, in order.

        Raises:
            EmbeddingMismatchError: the model's vectors are not the size of the collection's.
        """
        return self.writer.write(items, on_progress)

    def delete_source(self, source: str) -> int:
        """Delete every chunk of ``source`` (and its lexical postings); returns how many."""
        with self._conn.transaction():
            removed = self._conn.execute(f"DELETE FROM {self.table} WHERE source = %s", (source,)).rowcount
            self.catalog.forget_source(source)
        return removed

    def drop(self) -> None:
        """Drop the collection (:func:`store.collections.drop_tables`), one an ingest made but could not fill."""
        drop_tables(self._conn, self.collection, self.tuning)

    def finish_load(self, min_chunks: int | None = None) -> tuple[GraphUpdate, bool]:
        """After a load, on two connections at once: this one brings the mention graph in step
        (:meth:`store.mentions.MentionGraph.update`) while a second builds the postings' indexes
        a bulk load dropped (:meth:`store.lexical.LexicalIndex.ensure_indexes`) and the HNSW
        index from ``min_chunks`` chunks (default ``tuning.hnsw_min_chunks``;
        :meth:`store.vectors.VectorIndex.ensure`), and refreshes the planner's statistics.

        Returns:
            The graph update, and whether the HNSW index was built now.

        Raises:
            StoreUnavailableError: the second connection cannot be opened.
        """
        indexing = connect(self.url)
        try:
            with ThreadPoolExecutor(max_workers=1) as pool:
                built = pool.submit(self._build_indexes, indexing, min_chunks)
                try:
                    graph = self.graph.update()
                except BaseException:  # Ctrl-C or an error: stop the index build too (it is redone next time)
                    indexing.cancel_safe()
                    raise
                return graph, built.result()
        finally:
            indexing.close()

    def _build_indexes(self, conn: psycopg.Connection, min_chunks: int | None) -> bool:
        lexical = LexicalIndex(conn, self.table, self.tuning)
        lexical.ensure_indexes()
        built = VectorIndex(conn, self.table, self.tuning).ensure(lexical.size(), min_chunks)
        conn.execute(f"ANALYZE {self.table}, {self.table}_terms, {self.table}_df")
        return built

    def count(self, where: ChunkFilter | None = None) -> int:
        """Number of chunks in the collection (that ``where`` allows)."""
        condition, params = (where or ChunkFilter()).to_sql("c")
        return self._conn.execute(f"SELECT count(*) FROM {self.table} c WHERE {condition}", params).fetchone()[0]

    def dense_search(self, query: str, k: int, where: ChunkFilter | None = None) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by cosine similarity to the query embedding, best first; only
        chunks ``where`` allows. Raises ``EmbeddingMismatchError`` as :meth:`embed_query` does."""
        return self.vectors.search(self.embed_query(query), k, where)

    def embed_query(self, query: str) -> list[float]:
        """The query's embedding; raises ``EmbeddingMismatchError`` when the model gave a vector of
        another size than the collection's (:func:`store.vectors.require_dimension`)."""
        vector = self.embedding.embeddings.embed_query(query)
        require_dimension(len(vector), self.embedding.model_id, self.embedding.dimension, self.collection)
        return vector

    def rank_among(self, query: str, ids: list[str]) -> dict[str, float]:
        """Relevance of each chunk in ``ids`` to ``query``, fusing dense and BM25 ranks among
        ``ids`` only: reranks an evidence pool against the original question without a model.

        Returns:
            chunk id → relevance 0–1 (see :func:`store.fusion.normalised`); ids not in the
            collection are absent. Raises ``EmbeddingMismatchError`` as :meth:`embed_query` does.
        """
        if not ids:
            return {}
        vector = self.embed_query(query)
        dense = self._conn.execute(
            f"SELECT chunk_id FROM {self.table} WHERE chunk_id = ANY(%s) ORDER BY embedding <=> %s::vector, chunk_id",
            (list(ids), str(vector)),
        ).fetchall()
        lexical = self.lexical.search(query, len(ids), among=list(ids))
        weights = (self.tuning.dense_weight, 1.0)
        fused = weighted_rrf(zip(([cid for (cid,) in dense], [cid for cid, _ in lexical]), weights, strict=True))
        return {cid: normalised(score, weights) for cid, score in fused.items()}

    def fetch(self, ids: Iterable[str]) -> dict[str, Chunk]:
        """The chunks with these ids that exist, by id, with their provenance (locator, version,
        ingested-at); score 0, no ranks."""
        rows = self._conn.execute(
            f"""SELECT c.chunk_id, c.content, c.source, coalesce(c.title, ''), c.chunk_index, c.version, s.ingested_at
                FROM {self.table} c LEFT JOIN rag_sources s ON s.collection = %s AND s.source = c.source
                WHERE c.chunk_id = ANY(%s)""",
            (self.collection, list(ids)),
        ).fetchall()
        return {
            cid: Chunk(
                chunk_id=cid,
                text=text,
                source=source,
                title=title,
                score=0.0,
                dense_rank=None,
                lexical_rank=None,
                locator=f"{source}#{index}",
                version=version,
                ingested_at=ingested.isoformat(timespec="seconds") if ingested else None,
            )
            for cid, text, source, title, index, version, ingested in rows
        }

    def search(self, query: str, k: int, where: ChunkFilter | None = None) -> list[Chunk]:
        """Hybrid search: dense and BM25 rankings (each ``tuning.fusion_depth`` deep) fused by
        weighted reciprocal rank (Cormack et al. 2009; BM25 1, dense ``tuning.dense_weight``),
        with a third ranking when the query has exact names (``work_mem``,
        ``pg_hba.conf``): the chunks naming them literally (``tuning.exact_weight``), which
        BM25 alone cannot tell from ``maintenance_work_mem``.

        Args:
            query: the search text.
            k: how many chunks to return.
            where: metadata filter / source allowlist (``None``: every chunk).

        Returns:
            Up to ``k`` chunks, best first, with their 0–1 relevance as ``score`` and per-ranker ranks.

        Raises:
            EmbeddingMismatchError: see :meth:`embed_query`.
        """
        depth = self.tuning.fusion_depth
        dense = [cid for cid, _ in self.dense_search(query, depth, where)]
        lexical = [cid for cid, _ in self.lexical.search(query, depth, where=where)]
        rankings, weights = [dense, lexical], [self.tuning.dense_weight, 1.0]
        if names := exact_names(query):
            rankings.append(self.names.naming(names, depth, where))
            weights.append(self.tuning.exact_weight)
        fused = weighted_rrf(zip(rankings, weights, strict=True))
        top = by_score(fused)[:k]
        found = self.fetch(top)
        dense_rank = {cid: rank for rank, cid in enumerate(dense, 1)}
        lexical_rank = {cid: rank for rank, cid in enumerate(lexical, 1)}
        return [
            {
                **found[cid],
                "score": normalised(round(fused[cid], 6), weights),
                "dense_rank": dense_rank.get(cid),
                "lexical_rank": lexical_rank.get(cid),
            }
            for cid in top
            if cid in found
        ]

    def close(self) -> None:
        """Close the connections (the embedded server stops with the process)."""
        self._conn.close()
