"""The BM25 index of a collection, in PostgreSQL beside its chunk table.

Four tables: ``<table>_terms`` (the postings: term, chunk number, term frequency, chunk length and
the posting's BM25 impact), ``<table>_doclen`` (chunk number, length), ``<table>_df`` (term, document
frequency) and ``<table>_bm25`` (one row: chunk count, total length). Statement-level triggers on
the chunk table maintain them set by set — one ``INSERT … SELECT`` over the statement's
transition table tokenises a whole batch — in the same transaction as every insert, update,
delete and truncate, whichever process or client wrote the rows. Writers of one collection are
serialised on the statistics row (taken first, so concurrent writers queue instead of
deadlocking). Terms come from PostgreSQL's ``to_tsvector('english', …)`` (stop words removed,
Snowball-stemmed), for chunks and queries alike. A posting names its chunk by the chunk table's
integer ``n`` (:data:`CHUNK_NUMBER`), not by its 32-character id: on the PostgreSQL manual's 7,493
chunks the id made 33 of a heap posting's ~84 bytes and of an index entry's ~68, stored twice.

The four tables are ``UNLOGGED``: they are derived from the chunk table, so writing them to the
write-ahead log bought nothing but crash safety, which rebuilding gives instead. PostgreSQL
empties an unlogged table in crash recovery (PostgreSQL manual, ``CREATE TABLE``: ``UNLOGGED``);
opening the collection then finds the statistics row missing (:meth:`LexicalIndex.current`) and
indexes every chunk again. About 8 % of the time of a 6.4k-paragraph ingest; a streaming replica
of an external server holds no BM25 index.

Scoring is BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework: BM25 and
Beyond") with Lucene's idf, in SQL, from the maintained statistics (never recounted per query).
A query reads, per term, only the ``tuning.bm25_posting_cap`` postings of highest impact (the
posting's BM25 term weight, ``tf·(k1+1) / (tf + k1·(1−b+b·len/avgdl))`` with the average length at
write time), through an index ordered by impact: impact-ordered postings with early termination
(Anh & Moffat 2006, "Pruned query evaluation using pre-computed impacts"). Terms rarer than the
cap are scored exactly; a common term adds nothing to chunks beyond its top postings, where its
weight is smallest. Scores use the current statistics and each posting's own tf and length.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

from store.connection import TableAddon
from store.filters import ChunkFilter

DOTTED = re.compile(r"\b[^\W\d]\w*(?:\.[^\W\d]\w*)+\b")
"""A dotted name (``itertools.groupby``, ``postgresql.auto.conf``): PostgreSQL's parser keeps it
as one lexeme, so a query naming it would miss a chunk that spells its last part alone."""


CHUNK_NUMBER = "n INT GENERATED ALWAYS AS IDENTITY"
"""The chunk table's integer key column that postings name (added to a collection made before it)."""


def lucene_idf(n: int, df: int) -> float:
    """Lucene's idf, ``ln(1 + (N − df + 0.5) / (df + 0.5))``, of a word ``df`` of ``n`` chunks hold."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


def with_parts(query: str) -> str:
    """``query`` followed by the parts of its dotted names ("What does itertools.groupby do?
    itertools groupby"): the whole name and each part are then query terms."""
    return " ".join([query, *(name.replace(".", " ") for name in DOTTED.findall(query))])


def _index_rows(t: str, rows: str) -> str:
    """SQL adding the postings of the chunk rows ``rows`` (a relation with n, title, content) to
    the index of chunk table ``t``; the statistics row must already be locked."""
    return f"""
        WITH toks AS MATERIALIZED (
            SELECT r.n AS doc, v.lexeme AS term, coalesce(array_length(v.positions, 1), 1) AS tf
            FROM {rows} r, unnest(to_tsvector('english', coalesce(r.title, '') || ' ' || r.content)) v),
        lens AS MATERIALIZED (SELECT doc, sum(tf)::int AS len FROM toks GROUP BY doc),
        doclen AS (INSERT INTO {t}_doclen (doc, len) SELECT doc, len FROM lens),
        stats AS (UPDATE {t}_bm25 SET n = n + (SELECT count(*) FROM lens),
                         total_len = total_len + (SELECT coalesce(sum(len), 0) FROM lens)
                  RETURNING greatest(total_len::float8 / greatest(n, 1), 1) AS avgdl, k1, b),
        df AS (INSERT INTO {t}_df (term, df) SELECT term, count(*) FROM toks GROUP BY term ORDER BY term
               ON CONFLICT (term) DO UPDATE SET df = {t}_df.df + EXCLUDED.df)
        INSERT INTO {t}_terms (term, doc, tf, len, impact)
        SELECT x.term, x.doc, x.tf, l.len,
               x.tf * (s.k1 + 1) / (x.tf + s.k1 * (1 - s.b + s.b * l.len / s.avgdl))
        FROM toks x JOIN lens l USING (doc), stats s
        ORDER BY x.term;"""


def _unindex_rows(t: str, rows: str) -> str:
    """SQL removing the postings of the chunk rows ``rows`` from the index of chunk table ``t``."""
    return f"""
        WITH gone AS (DELETE FROM {t}_terms p WHERE p.doc IN (SELECT n FROM {rows}) RETURNING p.term),
        lens AS (DELETE FROM {t}_doclen d WHERE d.doc IN (SELECT n FROM {rows}) RETURNING d.len),
        stats AS (UPDATE {t}_bm25 SET n = n - (SELECT count(*) FROM lens),
                         total_len = total_len - (SELECT coalesce(sum(len), 0) FROM lens))
        UPDATE {t}_df f SET df = f.df - g.c FROM (SELECT term, count(*) AS c FROM gone GROUP BY term) g
        WHERE f.term = g.term;"""


class LexicalIndex(TableAddon):
    """The BM25 index of the chunk table ``table``, on ``conn`` (autocommit connection)."""

    suffixes = ("terms", "doclen", "df", "bm25")

    def create(self) -> None:
        """Create the index tables and the statement triggers that fill them (inside the caller's
        transaction, for a new collection); ``k1`` and ``b`` come from the tuning."""
        t = self.table
        changed = "(SELECT r.n, r.title, r.content FROM {0} r JOIN {1} o USING (chunk_id) " + (
            "WHERE (r.title, r.content) IS DISTINCT FROM (o.title, o.content))"
        )
        lock = f"PERFORM 1 FROM {t}_bm25 FOR UPDATE;"
        self._conn.execute(
            f"""
            CREATE INDEX IF NOT EXISTS {t}_source_idx ON {t} (source);
            ALTER TABLE {t} ADD COLUMN IF NOT EXISTS {CHUNK_NUMBER};
            CREATE UNIQUE INDEX IF NOT EXISTS {t}_n_idx ON {t} (n);
            CREATE UNLOGGED TABLE {t}_terms (
                term TEXT NOT NULL, doc INT NOT NULL, tf INT NOT NULL, len INT NOT NULL, impact REAL NOT NULL);
            CREATE UNLOGGED TABLE {t}_doclen (doc INT PRIMARY KEY, len INT NOT NULL);
            CREATE UNLOGGED TABLE {t}_df (term TEXT PRIMARY KEY, df INT NOT NULL);
            CREATE UNLOGGED TABLE {t}_bm25 (
                n BIGINT NOT NULL, total_len BIGINT NOT NULL, k1 FLOAT8 NOT NULL, b FLOAT8 NOT NULL);
            INSERT INTO {t}_bm25 VALUES (0, 0, {float(self.tuning.bm25_k1)}, {float(self.tuning.bm25_b)});
            CREATE OR REPLACE FUNCTION {t}_index_added() RETURNS trigger AS $$
            BEGIN {lock} {_index_rows(t, "added")} RETURN NULL; END $$ LANGUAGE plpgsql;
            CREATE OR REPLACE FUNCTION {t}_unindex_removed() RETURNS trigger AS $$
            BEGIN {lock} {_unindex_rows(t, "removed")} RETURN NULL; END $$ LANGUAGE plpgsql;
            CREATE OR REPLACE FUNCTION {t}_reindex_updated() RETURNS trigger AS $$
            BEGIN {lock} {_unindex_rows(t, changed.format("removed", "added"))}
                  {_index_rows(t, changed.format("added", "removed"))} RETURN NULL; END $$ LANGUAGE plpgsql;
            CREATE OR REPLACE FUNCTION {t}_unindex_all() RETURNS trigger AS $$
            BEGIN {lock} TRUNCATE {t}_terms, {t}_doclen, {t}_df; UPDATE {t}_bm25 SET n = 0, total_len = 0;
                  RETURN NULL; END $$ LANGUAGE plpgsql;
            CREATE TRIGGER {t}_index_added AFTER INSERT ON {t} REFERENCING NEW TABLE AS added
                FOR EACH STATEMENT EXECUTE FUNCTION {t}_index_added();
            CREATE TRIGGER {t}_unindex_removed AFTER DELETE ON {t} REFERENCING OLD TABLE AS removed
                FOR EACH STATEMENT EXECUTE FUNCTION {t}_unindex_removed();
            CREATE TRIGGER {t}_reindex_updated AFTER UPDATE ON {t} REFERENCING OLD TABLE AS removed NEW TABLE AS added
                FOR EACH STATEMENT EXECUTE FUNCTION {t}_reindex_updated();
            CREATE TRIGGER {t}_unindex_all AFTER TRUNCATE ON {t} FOR EACH STATEMENT EXECUTE FUNCTION {t}_unindex_all();
            """
        )
        self.ensure_indexes()

    def drop(self) -> None:
        """Drop its tables and trigger functions if they exist (the triggers go with them)."""
        super().drop()
        t = self.table
        self._conn.execute(
            f"DROP FUNCTION IF EXISTS {t}_index_added(), {t}_unindex_removed(), {t}_reindex_updated(), "
            f"{t}_unindex_all() CASCADE"
        )

    def ensure_indexes(self) -> None:
        """Create the postings' indexes if they do not exist: by term and impact (the query's
        top postings) and by chunk (removing a chunk's postings)."""
        t = self.table
        with self.serialised("terms_indexes"):
            self._conn.execute(
                f"""CREATE INDEX IF NOT EXISTS {t}_terms_impact_idx ON {t}_terms (term, impact DESC)
                        INCLUDE (doc, tf, len);
                    CREATE INDEX IF NOT EXISTS {t}_terms_chunk_idx ON {t}_terms (doc)"""
            )

    def drop_indexes(self) -> None:
        """Drop the postings' indexes before a load larger than the collection: inserting into an
        unindexed table and building each index once afterwards (:meth:`ensure_indexes`) takes
        about half the time of maintaining them posting by posting (PostgreSQL manual,
        "Populating a Database": remove indexes). Searches meanwhile read the postings unindexed."""
        with self.serialised("terms_indexes"):
            self._conn.execute(f"DROP INDEX IF EXISTS {self.table}_terms_impact_idx, {self.table}_terms_chunk_idx")

    def current(self) -> bool:
        """Whether the index has this layout — a statistics table (the earlier per-row trigger had
        none) and postings naming chunks by number (not by chunk id) — and its statistics row (a
        crash empties the unlogged tables)."""
        t = self.table
        layout = self._conn.execute(
            """SELECT to_regclass(%s) IS NOT NULL AND EXISTS (SELECT 1 FROM information_schema.columns
                      WHERE table_name = %s AND column_name = 'doc')""",
            (f"{t}_bm25", f"{t}_terms"),
        ).fetchone()[0]
        return layout and self._conn.execute(f"SELECT EXISTS (SELECT 1 FROM {t}_bm25)").fetchone()[0]

    def rebuild(self) -> None:
        """Drop the index (and an earlier layout's trigger) and index every chunk again, in one
        transaction (the caller holds the schema lock)."""
        t = self.table
        with self._conn.transaction():
            for name in ("index_terms", "index_added", "unindex_removed", "reindex_updated", "unindex_all"):
                self._conn.execute(f"DROP TRIGGER IF EXISTS {t}_{name} ON {t}")
            self.drop()
            self.create()  # numbers the chunks first, for a collection made before they had numbers
            self._conn.execute(f"LOCK TABLE {t}_bm25; {_index_rows(t, t)}")

    def size(self) -> int:
        """Number of chunks indexed (equals the chunk count when consistent)."""
        return self._conn.execute(f"SELECT n FROM {self.table}_bm25").fetchone()[0]

    def search(
        self, query: str, k: int, among: list[str] | None = None, where: ChunkFilter | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by BM25 (``k1``, ``b`` from the tuning; Lucene's idf), best first.

        Args:
            query: the search text (tokenised like the chunks, plus the parts of its dotted
                names: :func:`with_parts`).
            k: how many ids to return.
            among: score only these chunks (exactly: every posting of theirs counts).
            where: only chunks this filter allows (collection statistics stay global).

        Returns:
            (chunk id, BM25 score) pairs; each query term reads at most
            ``tuning.bm25_posting_cap`` postings (highest impact first, those ``where`` allows).
        """
        t = self.table
        condition, params = (where or ChunkFilter()).to_sql("c")
        if among is not None:  # the few chunks' own postings (chunk index), not the terms' lists
            postings = """SELECT a.doc, a.tf, a.len FROM among a WHERE a.term = qt.term"""
        elif where:
            postings = f"""SELECT p.doc, p.tf, p.len FROM {t}_terms p JOIN {t} c ON c.n = p.doc
                           WHERE p.term = qt.term AND {condition} ORDER BY p.impact DESC LIMIT %(cap)s"""
        else:
            postings = f"""SELECT p.doc, p.tf, p.len FROM {t}_terms p
                           WHERE p.term = qt.term ORDER BY p.impact DESC LIMIT %(cap)s"""
        among_cte = (
            f""", among AS MATERIALIZED (SELECT term, doc, tf, len FROM {t}_terms
                                          WHERE doc = ANY(ARRAY(SELECT n FROM {t} WHERE chunk_id = ANY(%(among)s))))"""
            if among is not None
            else ""
        )
        rows = self._conn.execute(
            f"""
            WITH st AS MATERIALIZED (
                SELECT n::float8 AS n, greatest(total_len::float8 / greatest(n, 1), 1) AS avgdl FROM {t}_bm25),
            qt AS MATERIALIZED (
                SELECT q.term, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS idf
                FROM (SELECT DISTINCT lexeme AS term FROM unnest(to_tsvector('english', %(q)s))) q
                     CROSS JOIN LATERAL (SELECT df FROM {t}_df d WHERE d.term = q.term AND d.df > 0) d, st){among_cte}
            SELECT c.chunk_id, top.score FROM (
                SELECT h.doc, sum(qt.idf * h.tf * (%(k1)s + 1)
                                  / (h.tf + %(k1)s * (1 - %(b)s + %(b)s * h.len / st.avgdl))) AS score
                FROM qt CROSS JOIN LATERAL ({postings}) h, st
                GROUP BY h.doc ORDER BY score DESC, h.doc LIMIT %(k)s) top
            JOIN {t} c ON c.n = top.doc ORDER BY top.score DESC, top.doc
            """,
            {
                "q": with_parts(query),
                "k": k,
                "k1": self.tuning.bm25_k1,
                "b": self.tuning.bm25_b,
                "among": among,
                "cap": self.tuning.bm25_posting_cap,
                **params,
            },
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def idf(self, words: Sequence[str]) -> dict[str, float]:
        """Lucene's idf, ``ln(1 + (N − df + 0.5) / (df + 0.5))``, of each of ``words`` over the
        whole collection (``N`` chunks): the highest idf among the word's lexemes, so a word the
        collection never holds gets the highest possible. Stop words (no lexeme) are absent
        from the result."""
        rows = self._conn.execute(
            f"""
            WITH w AS (SELECT word, lexeme FROM unnest(%(words)s::text[]) AS word,
                       LATERAL unnest(to_tsvector('english', word))),
            n AS (SELECT n::float8 AS n FROM {self.table}_bm25),
            df AS (SELECT w.word, coalesce((SELECT df FROM {self.table}_df d WHERE d.term = w.lexeme), 0) AS df FROM w)
            SELECT df.word, max(ln(1 + (n.n - df.df + 0.5) / (df.df + 0.5))) FROM df, n GROUP BY df.word
            """,
            {"words": list(words)},
        ).fetchall()
        return {word: float(value) for word, value in rows}
