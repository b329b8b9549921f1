"""The BM25 index of a collection, in PostgreSQL beside its chunk table.

Two tables (``<table>_terms``: term, chunk id, term frequency; ``<table>_doclen``: chunk id,
length) are maintained by a trigger on the chunk table, so the index changes in the same
transaction as every insert, upsert and delete, whichever process or client wrote the row. Terms
come from PostgreSQL's ``to_tsvector('english', …)`` (stop words removed, Snowball-stemmed), for
chunks and queries alike. Scoring is BM25 (Robertson & Zaragoza 2009, "The Probabilistic
Relevance Framework: BM25 and Beyond") with Lucene's idf, in SQL.
"""

from __future__ import annotations

import re
from typing import Sequence

from store.connection import TableAddon
from store.filters import ChunkFilter


class LexicalIndex(TableAddon):
    """The BM25 index of the chunk table ``table``, on ``conn`` (autocommit connection)."""

    suffixes = ("terms", "doclen")

    def create(self) -> None:
        """Create the index tables and the trigger that fills them (inside the caller's
        transaction, for a new collection)."""
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

    def size(self) -> int:
        """Number of chunks indexed (equals the chunk count when consistent)."""
        return self._conn.execute(f"SELECT count(*) FROM {self.table}_doclen").fetchone()[0]

    def search(
        self, query: str, k: int, among: list[str] | None = None, where: ChunkFilter | None = None
    ) -> list[tuple[str, float]]:
        """Top ``k`` chunk ids by BM25 (``k1``, ``b`` from the tuning; Lucene's idf), best first; only chunks
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
            {"q": query, "k": k, "k1": self.tuning.bm25_k1, "b": self.tuning.bm25_b, "among": among, **params},
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
            n AS (SELECT count(*)::float8 AS n FROM {self.table}_doclen),
            df AS (SELECT term, count(*)::float8 AS df FROM {self.table}_terms
                   WHERE term IN (SELECT lexeme FROM w) GROUP BY term)
            SELECT w.word, max(ln(1 + (n.n - coalesce(df.df, 0) + 0.5) / (coalesce(df.df, 0) + 0.5)))
            FROM w LEFT JOIN df ON df.term = w.lexeme, n GROUP BY w.word
            """,
            {"words": list(words)},
        ).fetchall()
        return {word: float(value) for word, value in rows}

    def absent(self, words: Sequence[str]) -> list[str]:
        """Those of ``words`` that no chunk's title or text contains as a whole word,
        case-insensitively: a setting name such as ``transaction_timeout`` is absent even though
        its parts are indexed words. A dotted name (``functools.lru_cache``) is present when one
        chunk holds all its parts (documentation rarely spells the dotted form out). One scan of
        the collection per absent word (a present word stops at its first chunk)."""
        found = []
        for word in words:
            parts = [re.escape(part) for part in (word.split(".") if " " not in word else [word]) if part]
            condition = " AND ".join(["(title || ' ' || content) ~* %s"] * len(parts))
            patterns = [f"\\m{part}\\M" for part in parts]
            if not self._conn.execute(
                f"SELECT EXISTS (SELECT 1 FROM {self.table} WHERE {condition})", patterns
            ).fetchone()[0]:
                found.append(word)
        return found

    def literal_idf(self, words: Sequence[str]) -> dict[str, float]:
        """Lucene's idf of each of ``words`` counted as a whole literal word (or dotted name),
        case-insensitively — for exact names, which the index splits into common lexemes
        (``effective_cache_size`` → effect, cach, size). One scan of the collection per word."""
        rows = self._conn.execute(
            f"""
            WITH n AS (SELECT count(*)::float8 AS n FROM {self.table})
            SELECT word, ln(1 + (n.n - df + 0.5) / (df + 0.5)) FROM n,
                 LATERAL (SELECT word, (SELECT count(*) FROM {self.table}
                                        WHERE (title || ' ' || content) ~* ('\\m' || pattern || '\\M'))::float8 AS df
                          FROM unnest(%(words)s::text[], %(patterns)s::text[]) AS u(word, pattern)) AS counted
            """,
            {"words": list(words), "patterns": [re.escape(w) for w in words]},
        ).fetchall()
        return {word: float(value) for word, value in rows}
