"""Reads of a whole collection's content that the deciders take as knowledge: the glossary's
cross-references and the common forms it names, the alias tables of data types, the programs said to wrap an
SQL command, and the chunks holding a marker as written (function table rows). Each is one ``strpos`` scan
(~20 ms for 7k chunks, no regex in SQL), read once a process by :class:`agentic_rag.services.Services`.
"""

from __future__ import annotations

import re

from core.text import SEE
from store.connection import TableAddon


class CollectionReads(TableAddon):
    """Whole-collection reads of the chunk table ``table`` on ``conn`` (the base of :class:`store.names.NameIndex`)."""

    def containing(self, *markers: str) -> list[tuple[str, str]]:
        """``(chunk id, text)`` of every chunk whose text holds one of ``markers`` as written, in page
        order (``strpos``, no regex: ~20 ms for 7k chunks)."""
        where = " OR ".join(["strpos(content, %s) > 0"] * len(markers))
        query = f"SELECT chunk_id, content FROM {self.table} WHERE {where} ORDER BY source, chunk_index"
        return self._conn.execute(query, markers).fetchall()


    def see_references(self) -> list[tuple[str, str]]:
        """Every cross-reference entry of the collection as (term line, target): a glossary's "Standby
        (server)" followed by "See Replica (server)." (:data:`core.text.SEE`), both as written."""
        line = re.compile(r"(?m)^[ \t*•-]*(?P<term>[^\n]{1,80})\n[ \t*•-]*(?P<see>See [^\n]+)$")
        rows = self.containing("\nSee ", "\n- See ")
        pairs = ((m["term"].strip(), SEE.match(m["see"].strip())) for _, text in rows for m in line.finditer(text))
        return list(dict.fromkeys((term, see["target"]) for term, see in pairs if see))


    def own_names(self, share: float) -> list[str]:
        """The names the collection is about: words written in CamelCase in page titles ("PostgreSQL",
        not "pgSQL") whose lexeme at least ``share`` of its chunks hold (its BM25 document
        frequencies, :mod:`store.lexical`), most pages first."""
        camel = r"\m[A-Za-z]*[a-z][A-Z][A-Za-z]*\M"
        titled = f"""SELECT w, count(*) AS pages FROM (
                       SELECT DISTINCT source, (regexp_matches(title, %s, 'g'))[1] AS w FROM {self.table}) t
                     GROUP BY w"""
        rows = self._conn.execute(
            f"""SELECT t.w FROM ({titled}) t
                JOIN {self.table}_df d ON d.term = (SELECT lexeme FROM unnest(to_tsvector('english', t.w)) LIMIT 1)
                WHERE d.df >= %s * (SELECT count(*) FROM {self.table}) ORDER BY t.pages DESC""",
            (camel, share),
        ).fetchall()
        return [w for (w,) in rows]

