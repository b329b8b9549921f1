"""The chunk store: one PostgreSQL table per collection, written and searched through
langchain-postgres' :class:`PGVectorStore`, with a BM25 inverted index beside it.

Hybrid retrieval fuses a dense ranking (pgvector cosine distance) with a BM25 ranking
(Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and Beyond") by
reciprocal rank fusion (Cormack, Clarke & Büttcher 2009): ``score = Σ 1 / (60 + rank)``.

The BM25 index is two tables (``<table>_terms``: term, chunk id, term frequency;
``<table>_doclen``: chunk id, length) maintained by a trigger on the chunk table, so it is
updated in the same transaction as every insert, upsert and delete, whichever process or client
wrote the row. Terms come from PostgreSQL's ``to_tsvector('english', …)`` (stop words removed,
Snowball-stemmed), used for both chunks and queries.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Callable, Iterable, NotRequired, TypedDict

import psycopg
from langchain_core.documents import Document
from langchain_postgres import Column, PGEngine, PGVectorStore

from agentic_rag.errors import CollectionNotFoundError, EmbeddingMismatchError, StoreUnavailableError
from providers.embeddings import EmbeddingModel
from store.filters import ChunkFilter
from store.mentions import MentionGraph

RRF_K = 60
"""Reciprocal-rank-fusion constant from Cormack et al. (2009)."""
DENSE_WEIGHT = 0.5
"""Weight of the dense ranking in the fusion (BM25's is 1). WordLlama is the weaker ranker on
HotpotQA (both-gold recall@5: dense 0.48, BM25 0.585); equal weights scored 0.545 there, this
weight 0.58 (bench/hotpotqa.py)."""
BM25_K1 = 1.2
BM25_B = 0.75
_SCHEMA_LOCK = 7_426_017  # advisory lock id serialising schema changes across processes
WRITE_BATCH = 256
"""Chunks embedded and upserted per batch when ingesting."""


class Chunk(TypedDict):
    """One retrieved chunk, as carried in graph state (plain JSON-serialisable values)."""

    chunk_id: str
    text: str
    source: str
    title: str
    score: float
    """Fused reciprocal-rank score for the query that found it (higher is better)."""
    dense_rank: int | None
    lexical_rank: int | None
    relevance: NotRequired[float]
    """Grader's relevance to the question (0–1); set once the chunk has been graded."""
    hop: NotRequired[int]
    """The hop that first found the chunk (1 = the question itself)."""
    rank: NotRequired[int]
    """Its position in that hop's results (0 = first)."""
    named: NotRequired[bool]
    """First-hop chunks: the question names the chunk's title (an entity it asks about)."""
    anchor: NotRequired[bool]
    """First-hop chunks: later hops cannot displace it (a top chunk, or ``named``)."""
    confirmed: NotRequired[bool]
    """A first-hop chunk outside the anchors that a later hop reached again (two paths to it)."""
    via: NotRequired[str]
    """For chunks found by later hops: the query that found the chunk, or for a graph hop the
    entity whose mention led to it."""
    linked_from: NotRequired[str]
    """For chunks reached by a graph hop: the chunk that mentions ``via``."""
    locator: NotRequired[str]
    """Where the chunk is: ``<source>#<chunk index>``."""
    version: NotRequired[str | None]
    """The date or version its document states (see :func:`ingest.loaders.document_version`)."""
    ingested_at: NotRequired[str | None]
    """When its source was last ingested (ISO 8601, UTC)."""
    superseded_by: NotRequired[str]
    """Set when a newer version of the same document is in the evidence: that chunk's id."""


def chunk_id(source: str, title: str, text: str) -> str:
    """Stable chunk id: the first 32 hex digits of SHA-256 over source, title and content."""
    return hashlib.sha256(f"{source}\x00{title}\x00{text}".encode()).hexdigest()[:32]


def _psycopg_url(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def _sqlalchemy_url(url: str) -> str:
    for prefix in ("postgresql+psycopg://", "postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _redact(url: str) -> str:
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        return f"{scheme}://…@{rest.split('@', 1)[1]}"
    return url


@dataclass
class SourceUpdate:
    """What ingesting one source changed: chunks added and removed (0, 0 when unchanged)."""

    source: str
    added: int
    removed: int


class ChunkStore:
    """Chunks of one collection: write, delete, and hybrid search.

    Use :meth:`open`; the constructor expects an already-checked connection.
    """

    def __init__(
        self, url: str, collection: str, embedding: EmbeddingModel, conn: psycopg.Connection, create: bool = True
    ):
        self.url = url
        self.collection = collection
        self.embedding = embedding
        self.table = f"chunks_{collection}"
        self._conn = conn
        self._engine = PGEngine.from_connection_string(_sqlalchemy_url(url))
        self.graph = MentionGraph(conn, self.table)
        """The collection's entity-mention graph (updated by the ingest pipeline)."""
        self._ensure_collection(create)
        self._vectors = PGVectorStore.create_sync(
            self._engine,
            embedding.embeddings,
            self.table,
            id_column="chunk_id",
            metadata_columns=["source", "title", "chunk_index", "version"],
        )

    @classmethod
    def open(cls, url: str, collection: str, embedding: EmbeddingModel, create: bool = True) -> "ChunkStore":
        """Connect, create the schema if needed and check the collection's embedding model.

        Args:
            url: ``postgresql://`` URL of a server with the pgvector extension available.
            collection: collection name (letters, digits, ``_``).
            embedding: the model used to embed chunks and queries.
            create: create the collection when it does not exist (ingestion); when ``False``
                (questions), a missing collection is an error.

        Raises:
            StoreUnavailableError: the server cannot be reached, or the URL is not PostgreSQL's.
            EmbeddingMismatchError: the collection was built with another model or dimension.
            CollectionNotFoundError: ``create`` is ``False`` and the collection does not exist.
        """
        if not url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
            raise StoreUnavailableError(
                f"DATABASE_URL '{_redact(url)}' is not a PostgreSQL URL; use postgresql://user:password@host:port/db, "
                "or unset it to use the embedded database"
            )
        try:
            conn = psycopg.connect(_psycopg_url(url), connect_timeout=5, autocommit=True)
        except psycopg.Error as exc:
            lines = [" ".join(line.split()) for line in str(exc).splitlines() if line.strip()]
            reason = lines[-1] if lines else type(exc).__name__
            raise StoreUnavailableError(
                f"cannot connect to PostgreSQL at {_redact(url)} ({reason}); start the server, fix "
                "DATABASE_URL, or unset it to use the embedded database"
            ) from exc
        try:
            return cls(url, collection, embedding, conn, create)
        except BaseException:
            conn.close()
            raise

    # -- schema -------------------------------------------------------------------------------

    def _ensure_collection(self, create: bool) -> None:
        conn = self._conn
        conn.execute("SELECT pg_advisory_lock(%s)", (_SCHEMA_LOCK,))
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute(
                """CREATE TABLE IF NOT EXISTS rag_collections (
                       name TEXT PRIMARY KEY, table_name TEXT NOT NULL,
                       embedding_model TEXT NOT NULL, dimension INT NOT NULL,
                       created_at TIMESTAMPTZ NOT NULL DEFAULT now())"""
            )
            conn.execute(
                """CREATE TABLE IF NOT EXISTS rag_sources (
                       collection TEXT NOT NULL, source TEXT NOT NULL, content_hash TEXT NOT NULL,
                       chunks INT NOT NULL, ingested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                       PRIMARY KEY (collection, source))"""
            )
            row = conn.execute(
                "SELECT embedding_model, dimension FROM rag_collections WHERE name = %s",
                (self.collection,),
            ).fetchone()
            if row is not None:
                model, dimension = row
                if (model, dimension) != (self.embedding.model_id, self.embedding.dimension):
                    raise EmbeddingMismatchError(
                        f"collection '{self.collection}' was built with {model} ({dimension}-d) but "
                        f"this run embeds with {self.embedding.model_id} "
                        f"({self.embedding.dimension}-d); use --embedding matching the collection, "
                        "or ingest into another --collection"
                    )
                self.graph.create_schema()  # collections made before the graph existed gain it
                conn.execute(f"ALTER TABLE {self.table} ADD COLUMN IF NOT EXISTS version TEXT")  # and provenance
                return
            if not create:
                names = [r[0] for r in conn.execute("SELECT name FROM rag_collections ORDER BY name").fetchall()]
                raise CollectionNotFoundError(
                    f"no collection '{self.collection}' (existing: {', '.join(names) or 'none'}); "
                    f"ingest documents first: agentic-rag ingest PATH --collection {self.collection}"
                )
            # A crash between creating the table and registering it leaves orphans: start clean.
            conn.execute(f"DROP TABLE IF EXISTS {self.table}_terms, {self.table}_doclen")
            self._engine.init_vectorstore_table(
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
            with conn.transaction():
                self._create_lexical_index()
                self.graph.create_schema()
                conn.execute(
                    "INSERT INTO rag_collections (name, table_name, embedding_model, dimension) "
                    "VALUES (%s, %s, %s, %s)",
                    (self.collection, self.table, self.embedding.model_id, self.embedding.dimension),
                )
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (_SCHEMA_LOCK,))

    def _create_lexical_index(self) -> None:
        t = self.table
        self._conn.execute(
            f"""
            CREATE INDEX IF NOT EXISTS {t}_source_idx ON {t} (source);
            CREATE TABLE {t}_terms (
                term TEXT NOT NULL,
                chunk_id TEXT NOT NULL REFERENCES {t} (chunk_id) ON DELETE CASCADE,
                tf INT NOT NULL,
                PRIMARY KEY (term, chunk_id));
            CREATE INDEX {t}_terms_chunk_idx ON {t}_terms (chunk_id);
            CREATE TABLE {t}_doclen (
                chunk_id TEXT PRIMARY KEY REFERENCES {t} (chunk_id) ON DELETE CASCADE,
                len INT NOT NULL);
            CREATE OR REPLACE FUNCTION {t}_index_terms() RETURNS trigger AS $$
            BEGIN
                IF TG_OP = 'UPDATE' THEN
                    DELETE FROM {t}_terms WHERE chunk_id = OLD.chunk_id;
                    DELETE FROM {t}_doclen WHERE chunk_id = OLD.chunk_id;
                END IF;
                INSERT INTO {t}_terms (term, chunk_id, tf)
                    SELECT lexeme, NEW.chunk_id, coalesce(array_length(positions, 1), 1)
                    FROM unnest(to_tsvector('english', coalesce(NEW.title, '') || ' ' || NEW.content));
                INSERT INTO {t}_doclen (chunk_id, len)
                    SELECT NEW.chunk_id, coalesce(sum(tf), 0) FROM {t}_terms
                    WHERE chunk_id = NEW.chunk_id;
                RETURN NULL;
            END $$ LANGUAGE plpgsql;
            CREATE TRIGGER {t}_index_terms AFTER INSERT OR UPDATE OF content, title ON {t}
                FOR EACH ROW EXECUTE FUNCTION {t}_index_terms();
            """
        )

    # -- writes -------------------------------------------------------------------------------

    def source_hash(self, source: str) -> str | None:
        """Content hash recorded when ``source`` was last fully ingested, or ``None``."""
        row = self._conn.execute(
            "SELECT content_hash FROM rag_sources WHERE collection = %s AND source = %s",
            (self.collection, source),
        ).fetchone()
        return row[0] if row else None

    def sources_under(self, prefix: str) -> list[str]:
        """Keys of the fully ingested sources that start with ``prefix`` (a folder path + separator)."""
        rows = self._conn.execute(
            "SELECT source FROM rag_sources WHERE collection = %s AND starts_with(source, %s) ORDER BY source",
            (self.collection, prefix),
        ).fetchall()
        return [r[0] for r in rows]

    def _source_chunk_ids(self, source: str) -> set[str]:
        rows = self._conn.execute(f"SELECT chunk_id FROM {self.table} WHERE source = %s", (source,)).fetchall()
        return {r[0] for r in rows}

    def replace_source(
        self,
        source: str,
        content_hash: str,
        documents: list[Document],
        on_progress: Callable[[int], None] | None = None,
    ) -> SourceUpdate:
        """Make the collection hold exactly ``documents`` for ``source``.

        New chunks (title and text embedded together) are upserted first, stale ones deleted next, and the source's
        manifest row is written last: a run killed part-way leaves the old manifest, so the next
        ingest of the source redoes the work instead of trusting a half-written state. Chunks
        whose id (source + content hash) is already stored are not embedded again.

        Args:
            source: the source key (absolute path, or ``scheme:name`` for built-in corpora).
            content_hash: hash of the whole source, to skip unchanged sources quickly.
            documents: its chunks; ``metadata`` must hold ``title`` and ``chunk_index``.
            on_progress: called with the number of chunks written after each batch.

        Returns:
            How many chunks were added and removed.
        """
        existing = self._source_chunk_ids(source)
        unique: dict[str, Document] = {}
        for doc in documents:
            doc_id = chunk_id(source, doc.metadata.get("title", ""), doc.page_content)
            if doc_id not in unique:
                metadata = {**doc.metadata, "source": source}
                unique[doc_id] = Document(id=doc_id, page_content=doc.page_content, metadata=metadata)
        new = [doc for doc_id, doc in unique.items() if doc_id not in existing]
        stale = sorted(existing - unique.keys())
        # Embed title and text together (the title often names the entity the text is about, as
        # in Wikipedia paragraphs); store the text alone.
        for start in range(0, len(new), WRITE_BATCH):
            batch = new[start : start + WRITE_BATCH]
            vectors = self.embedding.embeddings.embed_documents(
                [f"{d.metadata.get('title') or ''}\n{d.page_content}".strip() for d in batch]
            )
            self._vectors.add_embeddings(
                texts=[d.page_content for d in batch],
                embeddings=vectors,
                metadatas=[d.metadata for d in batch],
                ids=[d.id for d in batch],
            )
            if on_progress:
                on_progress(len(batch))
        if stale:
            self._vectors.delete(ids=stale)
        # The version is the document's: unchanged chunks of a re-dated document take the new one.
        version = documents[0].metadata.get("version") if documents else None
        self._conn.execute(
            f"UPDATE {self.table} SET version = %s WHERE source = %s AND version IS DISTINCT FROM %s",
            (version, source, version),
        )
        self._conn.execute(
            """INSERT INTO rag_sources (collection, source, content_hash, chunks)
               VALUES (%s, %s, %s, %s)
               ON CONFLICT (collection, source) DO UPDATE
               SET content_hash = EXCLUDED.content_hash, chunks = EXCLUDED.chunks, ingested_at = now()""",
            (self.collection, source, content_hash, len(unique)),
        )
        return SourceUpdate(source, len(new), len(stale))

    def delete_source(self, source: str) -> int:
        """Delete every chunk of ``source`` (and its lexical postings); returns how many."""
        ids = sorted(self._source_chunk_ids(source))
        if ids:
            self._vectors.delete(ids=ids)
        self._conn.execute("DELETE FROM rag_sources WHERE collection = %s AND source = %s", (self.collection, source))
        return len(ids)

    # -- reads --------------------------------------------------------------------------------

    def count(self) -> int:
        """Number of chunks in the collection."""
        return self._conn.execute(f"SELECT count(*) FROM {self.table}").fetchone()[0]

    def lexical_index_size(self) -> int:
        """Number of chunks in the BM25 index (equals :meth:`count` when consistent)."""
        return self._conn.execute(f"SELECT count(*) FROM {self.table}_doclen").fetchone()[0]

    def dense_search(self, query: str, k: int, where: ChunkFilter | None = None) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by cosine similarity to the query embedding, best first; only
        chunks ``where`` allows."""
        hits = self._vectors.similarity_search_with_score(query, k=k, filter=where.to_mongo() if where else None)
        return [(doc.id, 1.0 - float(distance)) for doc, distance in hits]

    def lexical_search(
        self, query: str, k: int, among: list[str] | None = None, where: ChunkFilter | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by BM25 (k1=1.2, b=0.75, Lucene's idf), best first; only chunks
        in ``among`` when it is given, and only chunks ``where`` allows (collection statistics
        stay global)."""
        t = self.table
        condition, params = (where or ChunkFilter()).to_sql("c")
        restrict = f"WHERE {condition}" + (" AND p.chunk_id = ANY(%(among)s)" if among is not None else "")
        rows = self._conn.execute(
            f"""
            WITH q AS (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', %(q)s))),
            stats AS (SELECT count(*)::float8 AS n, coalesce(avg(len), 1)::float8 AS avgdl
                      FROM {t}_doclen),
            df AS (SELECT term, count(*)::float8 AS df FROM {t}_terms JOIN q USING (term)
                   GROUP BY term)
            SELECT p.chunk_id,
                   sum(ln(1 + (stats.n - df.df + 0.5) / (df.df + 0.5))
                       * p.tf * (%(k1)s + 1)
                       / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * d.len / stats.avgdl))) AS score
            FROM {t}_terms p JOIN df USING (term) JOIN {t}_doclen d USING (chunk_id)
                 JOIN {t} c USING (chunk_id), stats
            {restrict}
            GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %(k)s
            """,
            {"q": query, "k": k, "k1": BM25_K1, "b": BM25_B, "among": among, **params},
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def rank_among(self, query: str, ids: list[str]) -> dict[str, float]:
        """Fused (weighted RRF) relevance of each chunk in ``ids`` to ``query``, ranking only
        among ``ids``: reranks an evidence pool against the original question without a model.

        Returns:
            chunk id → fused score (higher is better); ids not in the collection are absent.
        """
        if not ids:
            return {}
        vector = self.embedding.embeddings.embed_query(query)
        dense = self._conn.execute(
            f"SELECT chunk_id FROM {self.table} WHERE chunk_id = ANY(%s) ORDER BY embedding <=> %s::vector, chunk_id",
            (list(ids), str(vector)),
        ).fetchall()
        lexical = self.lexical_search(query, len(ids), among=list(ids))
        fused: dict[str, float] = {}
        for rank, (cid,) in enumerate(dense, 1):
            fused[cid] = fused.get(cid, 0.0) + DENSE_WEIGHT / (RRF_K + rank)
        for rank, (cid, _) in enumerate(lexical, 1):
            fused[cid] = fused.get(cid, 0.0) + 1.0 / (RRF_K + rank)
        return fused

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

    def search(self, query: str, k: int, candidates: int = 50, where: ChunkFilter | None = None) -> list[Chunk]:
        """Hybrid search: dense and BM25 rankings fused by weighted reciprocal rank,
        ``score = Σ weight / (RRF_K + rank)`` (weights: BM25 1, dense ``DENSE_WEIGHT``).

        Args:
            query: the search text.
            k: how many chunks to return.
            candidates: depth of each ranking fed to the fusion.
            where: metadata filter / source allowlist (``None``: every chunk).

        Returns:
            Up to ``k`` chunks, best first, with their fused score and per-ranker ranks.
        """
        dense = self.dense_search(query, candidates, where)
        lexical = self.lexical_search(query, candidates, where=where)
        fused: dict[str, float] = {}
        dense_rank = {cid: rank for rank, (cid, _) in enumerate(dense, 1)}
        lexical_rank = {cid: rank for rank, (cid, _) in enumerate(lexical, 1)}
        for weight, ranks in ((DENSE_WEIGHT, dense_rank), (1.0, lexical_rank)):
            for cid, rank in ranks.items():
                fused[cid] = fused.get(cid, 0.0) + weight / (RRF_K + rank)
        top = sorted(fused, key=lambda cid: (-fused[cid], cid))[:k]
        found = self.fetch(top)
        return [
            {
                **found[cid],
                "score": round(fused[cid], 6),
                "dense_rank": dense_rank.get(cid),
                "lexical_rank": lexical_rank.get(cid),
            }
            for cid in top
            if cid in found
        ]

    def close(self) -> None:
        """Close the connections (the embedded server stops with the process)."""
        self._conn.close()
        self._engine._run_as_sync(self._engine.close())
