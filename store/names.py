"""Literal name lookups in a collection: exact names (``work_mem``, ``itertools.groupby``) and the
entries that define a term, which BM25's stemmed, split lexemes cannot tell apart
(``work_mem`` and ``maintenance_work_mem`` both index ``work`` and ``mem``).

Each lookup reads only the chunks that may hold the name — those holding its rarest lexeme in the
BM25 postings (:mod:`store.lexical`) when it is made of letters and digits — then matches
PostgreSQL regular expressions against them: whole words, accent-insensitive ("Benitez" finds
"Benítez"), an entry being a line that opens on the name (a definition list's term, a setting's
"work_mem (integer)", a glossary's "Multi-version concurrency control (MVCC)").
"""

from __future__ import annotations

import re
from typing import Sequence

from core.spelling import near_words
from store.filters import ChunkFilter
from store.reads import CollectionReads

_ACCENTED_LETTERS = (
    ("a", "àáâãäåā"), ("c", "çčć"), ("e", "èéêëēě"), ("i", "ìíîïī"), ("n", "ñń"), ("o", "òóôõöøō"),
    ("s", "šś"), ("u", "ùúûüū"), ("y", "ýÿ"), ("z", "žźż"),
)  # fmt: skip
_ACCENTED = {base: f"[{base}{accented}{accented.upper()}]" for base, accented in _ACCENTED_LETTERS}


_UNACCENT = ("".join(a for _, a in _ACCENTED_LETTERS), "".join(b * len(a) for b, a in _ACCENTED_LETTERS))
"""``translate()`` arguments taking an indexed lexeme's accented letters to plain ones."""
PLAIN_TERM = f"translate(term, '{_UNACCENT[0]}', '{_UNACCENT[1]}')"
"""A BM25 term without its accents, in SQL: the expression of the document frequencies' index
that :meth:`NameIndex.ensure_index` makes (a query must spell it the same to use it)."""


ENTRY_START = "(^|\n)[\\s*•-]*"
"""Where a name opens an entry about it: the start of the chunk or of a line, after list marks."""
TERM_LINE = "([^\n]*\\()?{name}\\)?(\\s*\\([^)\n]*\\))?[ \t]*(\n|$)"
"""An entry's term line: the name alone (and a qualifier: "work_mem (integer)"), or in brackets after its
long form ("Multi-version concurrency control (MVCC)"); after :data:`ENTRY_START`."""


def name_with_part(word: str) -> str:
    """A regular expression (Python's and PostgreSQL's) of a snake_case name holding ``word`` (a pattern)
    as one of its parts, in the plural too: ``listen_addresses`` for "address"."""
    return rf"(?:\w+_)*(?:{word})(?:e?s)?(?:_\w+)*"


def literal_pattern(word: str) -> str:
    """A PostgreSQL regular expression matching ``word`` as a whole word, its unaccented letters also
    their accented forms ("Benitez" finds "Benítez"), a hyphen also a space or nothing ("Seven Day"), a space
    also a hyphen or line break ("Always On" finds "always-on")."""
    letters = (_ACCENTED.get(ch.lower(), {"-": "[- ]?", " ": "[-\\s]"}.get(ch, re.escape(ch))) for ch in word)
    return "\\m" + "".join(letters) + "\\M"


class NameIndex(CollectionReads):
    """Literal lookups of names in the chunk table ``table`` (and its BM25 postings), on ``conn``."""

    def ensure_index(self) -> None:
        """Index the BM25 document frequencies by their terms without accents (:data:`PLAIN_TERM`),
        if not yet: a name no chunk spells as asked is looked up with its accents ("benitez" →
        "benítez") by that index instead of a scan of every term (270 ms at 100k chunks)."""
        with self.serialised("df_plain"):
            self._conn.execute(
                f"CREATE INDEX IF NOT EXISTS {self.table}_df_plain_idx ON {self.table}_df ({PLAIN_TERM})"
            )

    def _held_sql(self) -> str:
        """SQL common table expressions ending in ``held``: the chunks that may hold the name in the
        parameter ``%(name)s``, read from the BM25 postings — those holding its rarest lexeme, at
        most ``tuning.bm25_posting_cap`` of them, highest impact first (every one in a collection
        where fewer hold it). The callers match the whole name in each; reading every posting of
        every lexeme ("american" and "football" for ``american_football``) cost a query hundreds
        of milliseconds at 100k chunks, and grows with the collection."""
        t = self.table
        return f"""lex AS MATERIALIZED (
                SELECT v.lexeme, coalesce(d.df, 0) AS df FROM unnest(to_tsvector('english', %(name)s)) v
                LEFT JOIN {t}_df d ON d.term = v.lexeme),
            held AS (SELECT c.chunk_id FROM {t} c WHERE c.n = ANY(ARRAY(
                         SELECT p.doc FROM {t}_terms p
                         WHERE p.term = (SELECT lexeme FROM lex ORDER BY df, lexeme LIMIT 1)
                         ORDER BY p.impact DESC LIMIT {int(self.tuning.bm25_posting_cap)})))"""

    def _holding(self, word: str) -> tuple[str, list[str]]:
        """(SQL relation, its parameters) of the chunks that may hold ``word`` literally. For
        words of letters and digits only (``Citus``, ``MongoDB``, ``PostgreSQL 17``), the chunks
        holding its rarest lexeme — every chunk that holds the words holds their lexemes, so a
        literal search reads one term's postings instead of the collection (when no chunk holds
        that lexeme, those holding it with accents: "benitez" → "benítez"); for other names
        (``work_mem``, dotted names, which the parser may split differently in context), every
        chunk."""
        t = self.table
        word = word.replace("-", " ")  # a compound's chunks hold its parts' lexemes (not one writing it joined)
        if not re.fullmatch(r"[^\W_]+(?: [^\W_]+)*", word):
            return t, []
        return (
            f"""(SELECT c.* FROM {t} c WHERE c.n = ANY(ARRAY(
                    WITH rare AS (SELECT v.lexeme FROM unnest(to_tsvector('english', %s)) v
                                  LEFT JOIN {t}_df d ON d.term = v.lexeme ORDER BY coalesce(d.df, 0) LIMIT 1),
                    known AS (SELECT d.term FROM {t}_df d JOIN rare ON d.term = rare.lexeme WHERE d.df > 0),
                    spelled AS (SELECT term FROM known UNION ALL
                                SELECT term FROM {t}_df WHERE {PLAIN_TERM} = (SELECT lexeme FROM rare)
                                AND NOT EXISTS (SELECT 1 FROM known) AND df > 0)
                    SELECT p.doc FROM {t}_terms p WHERE p.term = ANY(ARRAY(SELECT term FROM spelled))))
                UNION ALL SELECT c.* FROM {t} c WHERE to_tsvector('english', %s) = ''::tsvector)""",
            [word, word],
        )

    def absent(self, words: Sequence[str]) -> list[str]:
        """Those of ``words`` that no chunk's title or text contains as a whole word,
        case- and accent-insensitively (:func:`literal_pattern`): a setting name such as
        ``transaction_timeout`` is absent even though its parts are indexed words. A dotted name
        (``functools.lru_cache``) is present when one chunk holds all its parts (documentation
        rarely spells the dotted form out). Only chunks holding the word's rarest lexeme are
        read (see :meth:`_holding`)."""
        found = []
        for word in words:
            parts = [part for part in (word.split(".") if " " not in word else [word]) if part]
            condition = " AND ".join(["(title || ' ' || content) ~* %s"] * len(parts))
            patterns = [literal_pattern(part) for part in parts]
            chunks, params = self._holding(word)
            if not self._conn.execute(
                f"SELECT EXISTS (SELECT 1 FROM {chunks} h WHERE {condition})", [*params, *patterns]
            ).fetchone()[0]:
                found.append(word)
        return found

    def typos(self, words: Sequence[str]) -> list[str]:
        """Those of ``words`` one edit from an English word some chunk contains
        (:func:`core.spelling.near_words`, then :meth:`absent`): "whitespce" in a manual that
        says "whitespace" is a typo, not a name the collection lacks."""
        return [w for w in words if (near := near_words(w)) and len(self.absent(near)) < len(near)]

    def naming(self, names: Sequence[str], k: int, where: ChunkFilter | None = None) -> list[str]:
        """The ``k`` chunks that name ``names`` (exact names such as ``work_mem``, which the
        index splits into common lexemes shared with ``maintenance_work_mem``) as whole words,
        best first: a chunk whose line is the name (its entry's term line, :data:`TERM_LINE`), then
        one with a line opening on it ("work_mem (integer) …"), then by mentions. Only chunks
        holding every lexeme of a name, and the name itself as a substring, are read (code names:
        compared with their accents as typed).

        Returns:
            Chunk ids, best first (empty when no chunk names any of ``names``).
        """
        t = self.table
        condition, params = (where or ChunkFilter()).to_sql("c")
        scores: dict[str, tuple[int, int]] = {}
        for name in names:
            rows = self._conn.execute(
                f"""
                WITH {self._held_sql()}
                SELECT c.chunk_id, (c.content ~* %(entry)s)::int + (c.content ~* %(term)s)::int,
                       (SELECT count(*) FROM regexp_matches(c.content, %(pattern)s, 'gi'))
                FROM {t} c JOIN held USING (chunk_id)
                WHERE {condition} AND strpos(lower(c.content), lower(%(name)s)) > 0 AND c.content ~* %(pattern)s
                """,
                {
                    "name": name,
                    "pattern": literal_pattern(name),
                    "entry": ENTRY_START + literal_pattern(name),
                    "term": ENTRY_START + TERM_LINE.format(name=literal_pattern(name)),
                    **params,
                },
            ).fetchall()
            for chunk, opens, mentions in rows:
                before = scores.get(chunk, (0, 0))
                scores[chunk] = (before[0] + int(opens), before[1] + mentions)
        return sorted(scores, key=lambda cid: (-scores[cid][0], -scores[cid][1], cid))[:k]

    def literal_df(self, words: Sequence[str], cap: int | None = None) -> dict[str, int]:
        """How many chunks hold each of ``words`` as a whole literal word (or dotted name),
        case-insensitively — for exact names, which the index splits into common lexemes
        (``effective_cache_size`` → effect, cach, size); counted up to ``cap + 1`` when a cap is
        given (enough to tell a rare name). Reads the chunks holding the word's rarest lexeme
        (see :meth:`_holding`)."""
        limit = "" if cap is None else f" LIMIT {int(cap) + 1}"
        result = {}
        for word in words:
            chunks, params = self._holding(word)
            result[word] = self._conn.execute(
                f"SELECT count(*) FROM (SELECT 1 FROM {chunks} h WHERE (title || ' ' || content) ~* %s{limit}) m",
                [*params, f"\\m{re.escape(word)}\\M"],
            ).fetchone()[0]
        return result

    def entries(
        self,
        term: str,
        k: int,
        where: ChunkFilter | None = None,
        said: bool = True,
        typed: bool = False,
        part: bool = False,
    ) -> list[str]:
        """Up to ``k`` chunks holding an entry that defines ``term``: a line that is the term
        (:data:`TERM_LINE`: a glossary's or a definition list's term, a reference page's name),
        spelled as given or capitalised ("Tablespace" for "tablespace", not the option
        "TABLESPACE"), its last word also in brackets ("Standby (server)" for "standby server"),
        followed by a line that says something of it — a sentence ("A named location …") or a
        name line ("psql — PostgreSQL interactive terminal"), not a book index's "Symbols | A |
        B …"; in chunk id order. Only chunks holding every lexeme of the term are read. With
        ``said`` false, a term line that ends its chunk (what it says is in the next) counts too;
        with ``typed``, only a term line with a qualifier in brackets after a space counts, as a setting's
        ("work_mem (integer)"; a statement's bare placeholder "new_schema" does not), in any case
        ("TimeZone (string)" for "timezone"); with ``part``, a word ``term`` may be one part of
        the name, in the plural too ("listen_addresses (string)" for "address").

        Returns:
            Chunk ids (empty when no chunk has such a line).
        """
        condition, params = (where or ChunkFilter()).to_sql("c")
        *words, last = term.split(" ")
        forms, patterns = [term], [literal_pattern(term)]
        if words:  # "Standby (server)" for "standby server"
            forms.append(f"{' '.join(words)} ({last})")
            patterns.append(rf"{literal_pattern(' '.join(words))} \({literal_pattern(last)}\)")
        patterns = [rf"\m{name_with_part(re.escape(term))}\M"] if part else patterns
        rows = self._conn.execute(
            f"""
            WITH {self._held_sql()}
            SELECT c.chunk_id, c.content FROM {self.table} c JOIN held USING (chunk_id)
            WHERE {condition} AND c.content ~* %(line)s ORDER BY c.chunk_id
            """,
            {"name": term, "line": ENTRY_START + TERM_LINE.format(name=f"({'|'.join(patterns)})"), **params},
        ).fetchall()
        spelled = "|".join(re.escape(s) for f in forms for s in dict.fromkeys([f, f[:1].upper() + f[1:]]))
        spelled = name_with_part(spelled) if part else spelled
        qualifier = rf"[ \t]{'+' if typed else '*'}\([^)\n]{'+' if typed else '*'}\)"  # typed: not a call's "next(it)"
        term_line = rf"^[ \t*•-]*(?:[^\n]*\()?(?:{spelled})\)?(?:{qualifier}){'' if typed else '?'}[ \t]*"
        says = r"\n[ \t*•-]*(?:[^\n]*\.|[^\n]* — [^\n]*)$"  # then a sentence or a name line
        line = re.compile(rf"(?m){term_line}" + (says if said else rf"(?:{says}|\Z)"), re.I if typed else 0)
        return [cid for cid, content in rows if line.search(content)][:k]

    def titled(self, title: str, where: ChunkFilter | None = None) -> list[tuple[str, str]]:
        """``(chunk id, text)`` of every chunk titled ``title`` exactly (a program's reference page,
        "initdb") that holds the title's lexemes, in page order; read through the BM25 postings."""
        condition, params = (where or ChunkFilter()).to_sql("c")
        return self._conn.execute(
            f"""WITH {self._held_sql()}
                SELECT c.chunk_id, c.content FROM {self.table} c JOIN held USING (chunk_id)
                WHERE {condition} AND c.title = %(name)s ORDER BY c.source, c.chunk_index""",
            {"name": title, **params},
        ).fetchall()
