"""The entity-mention graph of a collection, stored in PostgreSQL beside its chunks.

Nodes are entities: the title of each chunk's document and the Markdown headings inside the
chunk, each under its normalised aliases (lower case, whitespace collapsed, a trailing parenthesised qualifier and a
leading article dropped: "The Lawless (TV series)" → "the lawless (tv series)", "lawless (tv
series)", "lawless"). Edges go chunk → entity for every mention of a known alias in the chunk's
text. Following the edges from a chunk reaches the chunks *about* the entities it mentions — the
graph-guided retrieval pattern of multi-hop QA (HippoRAG, Gutiérrez et al. 2024; GraphRAG, Edge
et al. 2024), here with exact name matching instead of extracted triples.

Mentions are found with the Aho–Corasick automaton (Aho & Corasick 1975, "Efficient string
matching: an aid to bibliographic search"; the ``pyahocorasick`` library): one pass over a
chunk's text finds every alias at once, however many there are. A match counts when it sits on
word boundaries and, for a capitalised name, starts with a capital in the text (a name, not the
common word); for a name in capitals (``WHENEVER``, ``LOCK``) its first two letters are capitals
in the text (the sentence-opening "Whenever" or "Lock" is the word, not the name); overlapping
matches keep the longest.

Three tables per collection, each row tied to its chunk by a cascading foreign key, so deleting
chunks (re-ingest, source removal) deletes their nodes and edges in the same statement:

* ``<table>_entities`` (alias, chunk id, name, kind): the chunks an entity is about;
* ``<table>_mentions`` (chunk id, alias): the edges;
* ``<table>_linked`` (chunk id): chunks already scanned;
* ``<table>_scanned`` (alias): aliases every scanned chunk has been matched against (an edited
  document whose names stay the same causes no rescan).

The comment on ``<table>_linked`` records the matching rule (:data:`MATCH_RULE`); an update finding
another drops the edges and scans every chunk again.

:meth:`MentionGraph.update` runs after each ingest, in one transaction: it drops edges to
entities that no longer exist, adds the nodes of unscanned chunks, scans those chunks against
every alias, and scans the already-scanned chunks that may mention a new alias (those holding
its rarest word in the BM25 postings) against the new aliases only. A run killed part-way leaves
the chunks unscanned, and the next update finishes the work.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, TypedDict

import ahocorasick

from core.text import has_terms, strip_qualifier
from store.connection import TableAddon
from store.filters import ChunkFilter

MATCH_RULE = "2: names in capitals are mentioned in capitals"
"""The matching rule's version; a collection whose graph was built by another is rescanned."""
MIN_ALIAS_CHARS = 4
"""Shorter aliases ("It", "Up") match too much text to be useful links (a rule, not a tuned value)."""
_ARTICLE = re.compile(r"^(?:the|a|an)\s+")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def normalise_name(name: str) -> str:
    """Matching form of a name: NFKC, lower case, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).lower().split())


@lru_cache(maxsize=65536)
def aliases(name: str) -> frozenset[str]:
    """The normalised aliases of an entity name: the name, without its parenthesised qualifier,
    and without a leading article; aliases under ``MIN_ALIAS_CHARS`` characters, without a
    letter, or made only of stop words are left out. Cached: a title is the name of each of its chunks."""
    full, bare = normalise_name(name), normalise_name(strip_qualifier(name))
    found = {full, bare, _ARTICLE.sub("", full), _ARTICLE.sub("", bare)}
    return frozenset(a for a in found if len(a) >= MIN_ALIAS_CHARS and any(ch.isalpha() for ch in a) and has_terms(a))


def headings(text: str) -> list[str]:
    """Markdown headings (``#`` to ``######``) in ``text``, in order."""
    return [h.strip() for h in _HEADING.findall(text) if h.strip()]


def entity_names(title: str, text: str) -> list[tuple[str, str]]:
    """(kind, name) of the entities a chunk is about: its title, then its headings."""
    return [("title", title)] * bool(title) + [("heading", h) for h in headings(text)]


def own_aliases(title: str, text: str) -> set[str]:
    """Aliases of the entities a chunk is about (its mentions of them are not edges)."""
    return {alias for _, name in entity_names(title, text) for alias in aliases(name)}


def name_case(names: Iterable[str]) -> str:
    """How an alias of these names must be written to be a mention: ``"caps"`` when every name is
    in capitals before its qualifier (two letters at least: ``WHENEVER``, ``SOS (ABBA song)``),
    else ``"capital"`` when one starts with a capital, else ``"any"``."""
    bare = [strip_qualifier(name) for name in names]
    if all(sum(ch.isalpha() for ch in name) >= 2 and name == name.upper() for name in bare):
        return "caps"
    return "capital" if any(name[:1].isupper() for name in bare) else "any"


def _folded(text: str) -> str:
    """``text`` lower-cased character by character, so offsets match the original."""
    folded = text.lower()
    if len(folded) == len(text):  # no character changed length (the usual case): same offsets
        return folded
    return "".join(ch if len(low := ch.lower()) != 1 else low for ch in text)


class Link(TypedDict):
    """One edge followed: chunk ``source_id`` mentions ``entity``, which chunk ``target_id`` is about."""

    source_id: str
    entity: str
    target_id: str


@dataclass
class GraphUpdate:
    """What one :meth:`MentionGraph.update` did."""

    chunks_scanned: int
    entities_added: int
    mentions_added: int
    mentions_dropped: int
    rescanned: int
    """Earlier chunks scanned again for the new aliases."""
    seconds: float


class MentionMatcher:
    """Every known alias, compiled into one Aho–Corasick automaton.

    Args:
        names: alias → how a mention must be written (:func:`name_case`).
    """

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names
        self._automaton = ahocorasick.Automaton()
        for alias in names:
            self._automaton.add_word(alias, alias)
        if names:
            self._automaton.make_automaton()

    def mentions(self, text: str) -> list[str]:
        """Aliases mentioned in ``text``, in order of first mention, each once."""
        if not self.names:
            return []
        original = " ".join(unicodedata.normalize("NFKC", text).split())  # hard line wraps inside names
        folded = _folded(original)
        spans = []
        for end, alias in self._automaton.iter(folded):
            start = end - len(alias) + 1
            if (start > 0 and folded[start - 1].isalnum()) or (end + 1 < len(folded) and folded[end + 1].isalnum()):
                continue
            case = self.names[alias]
            if case == "capital" and not (original[start].isupper() or original[start].isdigit()):
                continue
            opening = [ch for ch in original[start : end + 1] if ch.isalpha()][:2]
            if case == "caps" and not all(ch.isupper() for ch in opening):
                continue
            spans.append((start, end, alias))
        kept: list[tuple[int, int, str]] = []
        for start, end, alias in sorted(spans, key=lambda s: (s[0], -(s[1] - s[0]))):
            if kept and start <= kept[-1][1]:
                continue  # inside a longer (or earlier) match: "New York" within "New York City"
            kept.append((start, end, alias))
        return list(dict.fromkeys(alias for _, _, alias in kept))


class MentionGraph(TableAddon):
    """The mention graph of the chunk table ``table``, on ``conn`` (autocommit connection)."""

    suffixes = ("entities", "mentions", "linked", "scanned")

    def create_schema(self) -> None:
        """Create the graph's tables if missing (existing collections gain them on open)."""
        t = self.table
        self._conn.execute(
            f"""
            CREATE TABLE IF NOT EXISTS {t}_entities (
                alias TEXT NOT NULL,
                chunk_id TEXT NOT NULL REFERENCES {t} (chunk_id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                kind TEXT NOT NULL,
                PRIMARY KEY (alias, chunk_id));
            CREATE INDEX IF NOT EXISTS {t}_entities_chunk_idx ON {t}_entities (chunk_id);
            CREATE TABLE IF NOT EXISTS {t}_mentions (
                chunk_id TEXT NOT NULL REFERENCES {t} (chunk_id) ON DELETE CASCADE,
                alias TEXT NOT NULL,
                PRIMARY KEY (chunk_id, alias));
            CREATE INDEX IF NOT EXISTS {t}_mentions_alias_idx ON {t}_mentions (alias);
            CREATE TABLE IF NOT EXISTS {t}_linked (
                chunk_id TEXT PRIMARY KEY REFERENCES {t} (chunk_id) ON DELETE CASCADE);
            CREATE TABLE IF NOT EXISTS {t}_scanned (alias TEXT PRIMARY KEY);
            """
        )

    def _known(self) -> dict[str, str]:
        rows = self._conn.execute(f"SELECT alias, array_agg(DISTINCT name) FROM {self.table}_entities GROUP BY alias")
        return {alias: name_case(names) for alias, names in rows.fetchall()}

    def _insert(self, target: str, rows: list[tuple], width: int) -> None:
        """Insert ``rows`` (tuples of ``width`` texts) into ``target`` (``table (columns)``) in one
        set-based statement per 50k rows (arrays unnested), skipping rows already there."""
        arrays = ", ".join(["%s::text[]"] * width)
        for start in range(0, len(rows), 50_000):
            columns = [list(column) for column in zip(*rows[start : start + 50_000], strict=True)]
            self._conn.execute(f"INSERT INTO {target} SELECT * FROM unnest({arrays}) ON CONFLICT DO NOTHING", columns)

    def _rescan_query(self, new: list[str]) -> tuple[str, tuple]:
        """(SQL, parameters) of the scanned chunks that may mention one of the ``new`` aliases:
        those holding the alias's rarest lexeme in the BM25 postings (:mod:`store.lexical`), as
        a chunk holding the name holds its words — so adding a source reads a few posting lists,
        not the collection. Every scanned chunk when an alias has no lexeme (PostgreSQL's stop
        words). A name written inside a URL or file name (one token to the parser) is not found
        again this way."""
        t = self.table
        rarest = f"""SELECT a.alias, (SELECT v.lexeme FROM unnest(to_tsvector('english', a.alias)) v
                                      LEFT JOIN {t}_df d ON d.term = v.lexeme ORDER BY coalesce(d.df, 0) LIMIT 1)
                     FROM unnest(%s::text[]) AS a(alias)"""
        lexemes = self._conn.execute(rarest, (new,)).fetchall()
        columns = f"SELECT c.chunk_id, coalesce(c.title, ''), c.content FROM {t}_linked JOIN {t} c USING (chunk_id)"
        if any(lexeme is None for _, lexeme in lexemes):
            return columns, ()
        return (
            f"{columns} WHERE c.n IN (SELECT p.doc FROM {t}_terms p WHERE p.term = ANY(%s))",
            (sorted({lexeme for _, lexeme in lexemes}),),
        )

    def update(self) -> GraphUpdate:
        """Bring the graph in step with the chunk table (see the module docstring); one
        transaction, serialised per collection by an advisory lock.

        Returns:
            Counts of what changed and the seconds taken."""
        t, conn = self.table, self._conn
        started = time.perf_counter()
        with self.serialised("mentions"):
            rule = conn.execute("SELECT obj_description(%s::regclass, 'pg_class')", (f"{t}_linked",)).fetchone()[0]
            if rule != MATCH_RULE:  # edges found by an older rule (if any): every chunk is scanned again
                if conn.execute(f"SELECT EXISTS (SELECT 1 FROM {t}_linked)").fetchone()[0]:
                    conn.execute(f"TRUNCATE {t}_mentions, {t}_linked, {t}_scanned")
                conn.execute(f"COMMENT ON TABLE {t}_linked IS '{MATCH_RULE}'")
            before = {r[0] for r in conn.execute(f"SELECT alias FROM {t}_scanned").fetchall()}
            fresh = conn.execute(
                f"""SELECT c.chunk_id, coalesce(c.title, ''), c.content FROM {t} c
                    WHERE NOT EXISTS (SELECT 1 FROM {t}_linked l WHERE l.chunk_id = c.chunk_id)
                    ORDER BY c.chunk_id"""
            ).fetchall()
            entity_rows = [
                (alias, cid, name, kind)
                for cid, title, text in fresh
                for kind, name in entity_names(title, text)
                for alias in aliases(name)
            ]
            self._insert(f"{t}_entities (alias, chunk_id, name, kind)", entity_rows, 4)
            dropped = conn.execute(
                f"DELETE FROM {t}_mentions m WHERE NOT EXISTS (SELECT 1 FROM {t}_entities e WHERE e.alias = m.alias)"
            ).rowcount
            known = self._known()
            conn.execute(f"DELETE FROM {t}_scanned WHERE alias <> ALL(%s)", (list(known),))
            matcher = MentionMatcher(known)
            mention_rows = [
                (cid, alias)
                for cid, title, text in fresh
                for own in [own_aliases(title, text)]  # once per chunk, not once per mention
                for alias in matcher.mentions(text)
                if alias not in own
            ]
            new_aliases = {a: c for a, c in known.items() if a not in before}
            rescanned = 0
            # the chunks scanned before this update (none in a first load: nothing to rescan)
            if new_aliases and conn.execute(f"SELECT EXISTS (SELECT 1 FROM {t}_linked)").fetchone()[0]:
                new_matcher = MentionMatcher(new_aliases)
                with conn.cursor(name=f"{t}_rescan") as cur:  # server-side: streams a large collection
                    cur.execute(*self._rescan_query(list(new_aliases)))
                    for cid, title, text in cur:
                        rescanned += 1
                        own = own_aliases(title, text)
                        mention_rows += [(cid, a) for a in new_matcher.mentions(text) if a not in own]
            self._insert(f"{t}_mentions (chunk_id, alias)", mention_rows, 2)
            self._insert(f"{t}_linked (chunk_id)", [(c[0],) for c in fresh], 1)
            self._insert(f"{t}_scanned (alias)", [(a,) for a in new_aliases], 1)
        return GraphUpdate(
            chunks_scanned=len(fresh),
            entities_added=len(entity_rows),
            mentions_added=len(mention_rows),
            mentions_dropped=dropped,
            rescanned=rescanned,
            seconds=round(time.perf_counter() - started, 3),
        )

    def links_from(
        self, chunk_ids: list[str], exclude: Iterable[str] = (), where: ChunkFilter | None = None
    ) -> list[Link]:
        """Links out of ``chunk_ids``: every (chunk, mentioned entity, chunk about it), in the
        order of ``chunk_ids``, leaving out targets in ``exclude`` or in ``chunk_ids`` and hub
        entities (``tuning.hub_share``, ``tuning.hub_floor``); at most ``tuning.links_per_entity``
        target chunks per entity and ``tuning.max_links`` in all; each target once (via its first
        link); only targets ``where`` allows."""
        if not chunk_ids:
            return []
        t = self.table  # the chunk count is read from the BM25 statistics row (store.lexical), not counted
        condition, params = (where or ChunkFilter()).to_sql("c")
        rows = self._conn.execute(
            f"""WITH m AS MATERIALIZED (SELECT chunk_id, alias FROM {t}_mentions WHERE chunk_id = ANY(%(ids)s)),
                hubs AS (
                    SELECT alias FROM {t}_mentions WHERE alias IN (SELECT alias FROM m) GROUP BY alias
                    HAVING count(*) > greatest(%(floor)s, %(share)s * (SELECT n FROM {t}_bm25))),
                targets AS (
                    SELECT e.alias, e.name, e.chunk_id,
                           row_number() OVER (PARTITION BY e.alias ORDER BY c.chunk_index, e.chunk_id) AS nth
                    FROM {t}_entities e JOIN {t} c USING (chunk_id)
                    WHERE e.alias IN (SELECT alias FROM m) AND e.alias NOT IN (SELECT alias FROM hubs)
                          AND e.chunk_id <> ALL(%(skip)s) AND {condition})
                SELECT m.chunk_id, min(g.name), g.chunk_id
                FROM m JOIN targets g USING (alias)
                WHERE g.nth <= %(per)s
                GROUP BY m.chunk_id, g.chunk_id
                ORDER BY array_position(%(ids)s, m.chunk_id), min(g.name), g.chunk_id""",
            {
                "ids": list(chunk_ids),
                "skip": [*chunk_ids, *exclude],
                "floor": self.tuning.hub_floor,
                "share": self.tuning.hub_share,
                "per": self.tuning.links_per_entity,
                **params,
            },
        ).fetchall()
        links: dict[str, Link] = {}
        for source_id, name, target_id in rows:
            links.setdefault(target_id, Link(source_id=source_id, entity=name, target_id=target_id))
        return list(links.values())[: self.tuning.max_links]

    def counts(self) -> dict[str, int]:
        """Rows per table: ``entities`` (distinct aliases), ``entity_rows``, ``mentions``, ``linked``."""
        t = self.table
        row = self._conn.execute(
            f"""SELECT (SELECT count(DISTINCT alias) FROM {t}_entities), (SELECT count(*) FROM {t}_entities),
                       (SELECT count(*) FROM {t}_mentions), (SELECT count(*) FROM {t}_linked)"""
        ).fetchone()
        return dict(zip(("entities", "entity_rows", "mentions", "linked"), row, strict=True))

    def mentions_of(self, chunk_id: str) -> list[str]:
        """Aliases the chunk mentions, sorted."""
        rows = self._conn.execute(
            f"SELECT alias FROM {self.table}_mentions WHERE chunk_id = %s ORDER BY alias", (chunk_id,)
        ).fetchall()
        return [r[0] for r in rows]
