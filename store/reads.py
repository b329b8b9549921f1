"""Reads of a whole collection's content that the deciders take as knowledge: the glossary's
cross-references and the common forms it names, the alias tables of data types, the programs said to wrap an
SQL command, and the chunks holding a marker as written (function table rows). Each is one ``strpos`` scan
(~20 ms for 7k chunks, no regex in SQL), read once a process by :class:`agentic_rag.services.Services`.
"""

from __future__ import annotations

import re

from core.text import SEE
from store.connection import TableAddon

WRAPPER = re.compile(
    r"\b(?P<program>[a-z][\w-]*) is a (?:thin )?wrapper (?:around|over|for) the SQL (?:command|statement) "
    r"(?P<command>[A-Z]{2,}(?: [A-Z]{2,})*)\b"
)
"""A program said to run an SQL command: "clusterdb is a wrapper around the SQL command CLUSTER."."""


COMMON_FORM = re.compile(r"\b[Aa]n? (?P<form>[a-z][\w-]*) is the most common form of (?P<kind>[a-z][\w-]*)\b")
"""A word named the most common form of a more general term: "A table is the most common form of relation"."""


class CollectionReads(TableAddon):
    """Whole-collection reads of the chunk table ``table`` on ``conn`` (the base of :class:`store.names.NameIndex`)."""

    def containing(self, *markers: str) -> list[tuple[str, str]]:
        """``(chunk id, text)`` of every chunk whose text holds one of ``markers`` as written, in page
        order (``strpos``, no regex: ~20 ms for 7k chunks)."""
        where = " OR ".join(["strpos(content, %s) > 0"] * len(markers))
        query = f"SELECT chunk_id, content FROM {self.table} WHERE {where} ORDER BY source, chunk_index"
        return self._conn.execute(query, markers).fetchall()

    def pages_containing(self, *markers: str) -> list[tuple[str, str]]:
        """``(chunk id, text)`` of every chunk of each page (source) one of whose chunks holds one of
        ``markers`` as written, in page order: a table runs on into the next chunk."""
        where = " OR ".join(["strpos(content, %s) > 0"] * len(markers))  # no regex: ~20 ms for 7k chunks
        pages = f"SELECT DISTINCT source FROM {self.table} WHERE {where}"
        query = f"SELECT chunk_id, content FROM {self.table} WHERE source IN ({pages}) ORDER BY source, chunk_index"
        return self._conn.execute(query, markers).fetchall()

    def see_references(self) -> list[tuple[str, str]]:
        """Every cross-reference entry of the collection as (term line, target): a glossary's "Standby
        (server)" followed by "See Replica (server)." (:data:`core.text.SEE`), both as written."""
        line = re.compile(r"(?m)^[ \t*•-]*(?P<term>[^\n]{1,80})\n[ \t*•-]*(?P<see>See [^\n]+)$")
        rows = self.containing("\nSee ", "\n- See ")
        pairs = ((m["term"].strip(), SEE.match(m["see"].strip())) for _, text in rows for m in line.finditer(text))
        return list(dict.fromkeys((term, see["target"]) for term, see in pairs if see))

    def common_forms(self) -> dict[str, str]:
        """Each word the collection calls the most common form of a term, with that term (:data:`COMMON_FORM`:
        ``{"relation": "table"}``), keyed by the term; the first said of a term counts."""
        found = (m for _, text in self.containing(" is the most common form of ") for m in COMMON_FORM.finditer(text))
        forms: dict[str, str] = {}
        for m in found:
            forms.setdefault(m["kind"], m["form"])
        return forms

    def alias_rows(self) -> list[tuple[str, str]]:
        """(name, alias) of each row of a table headed "| Name | Aliases | …", read from its page's chunks in
        order (a table runs on into the next chunk): a data type and each other name it goes by,
        its brackets left out ("character varying" and "varchar" of "| character varying [ (n) ] | varchar
        [ (n) ] | …", "integer" and "int4" of "| integer | int, int4 | …")."""
        pairs, inside = [], False
        for _, content in self.pages_containing("| Name | Aliases |"):
            lines = content.split("\n")
            start = next((i for i, line in enumerate(lines) if line.startswith("| Name | Aliases |")), None)
            if start is None and not inside:
                continue
            # the table's rows: after its header, or from a continuing chunk's start (past a cut row's tail)
            body = lines[start + 1 :] if start is not None else lines[not lines[0].startswith("|") :]
            inside = True
            for line in body:
                cells = [re.sub(r"\s*\[[^]]*\]", "", cell).strip() for cell in line.strip(" |").split("|")]
                if not line.startswith("|") or len(cells) < 3:
                    inside = False
                    break
                pairs += [(cells[0], alias.strip()) for alias in cells[1].split(",") if alias.strip(" -:")]
        return list(dict.fromkeys(pairs))

    def wrapped_commands(self) -> dict[str, str]:
        """Each program the collection calls a wrapper around an SQL command, with that command
        (:data:`WRAPPER`): "clusterdb is a wrapper around the SQL command CLUSTER." gives
        ``{"clusterdb": "CLUSTER"}``; the first said of a program counts."""
        where = "strpos(content, 'wrapper ') > 0"  # no regex: ~20 ms for 7k chunks
        rows = self._conn.execute(f"SELECT content FROM {self.table} WHERE {where}").fetchall()
        found: dict[str, str] = {}
        for (content,) in rows:
            for m in WRAPPER.finditer(content):
                found.setdefault(m["program"], m["command"])
        return found

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

    def setting_names(self) -> list[str]:
        """The snake_case names of the collection's typed entries, each once, in page order: a setting's
        term line ("- maintenance_work_mem (integer)")."""
        line = re.compile(
            r"(?m)^[ \t*•-]*([a-z][a-z0-9]*(?:_[a-z0-9]+)+) \((?:integer|string|boolean|enum|floating point)\)$"
        )
        rows = self.containing(" (integer)", " (string)", " (boolean)", " (enum)", " (floating point)")
        return list(dict.fromkeys(m[1] for _, text in rows for m in line.finditer(text)))
