"""A limit asked of something ("How large can a field value be?", "How many indexes can a table
have?"): the rows of the collection's limits tables ("| Item | Upper Limit | Comment |", then
"| field size | 1 GB | |"), the row whose item the question names joined to the search. One
table row among many says too few words for its chunk to rank, and its item is said in a
manual's own terms ("field size"), the question's in everyday ones ("how large … a field value").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from agentic_rag.entry_search import joined
from core.text import term_set
from deciders.answer_types import ASKS_LIMIT
from store.chunks import Chunk, ChunkStore

_LIMIT_COLUMN = re.compile(r"^(?:upper )?limit$|^max(?:imum)?$", re.I)
"""A limits table's value column heading: "Upper Limit", "Limit", "Maximum"."""
_MEASURES = {"size": ("big", "large", "size", "huge"), "length": ("long", "length"), "number": ("many", "number")}
"""Each measure a limits table's item names, and the words a question asks it with."""
_PER = re.compile(r"\bper\b")
"""An item counted "per" something: "indexes per table" is a number."""
_MEASURED = {measure: frozenset(term_set(" ".join(words))) for measure, words in _MEASURES.items()}
_MEASURE_WORDS = frozenset().union(*_MEASURED.values())


@dataclass(frozen=True)
class LimitRow:
    """One row of a limits table: what is limited ("field size"), its limit ("1 GB"), the row as
    written and the chunk holding it."""

    item: str
    limit: str
    row: str
    chunk_id: str


def limit_rows(chunks: Sequence[tuple[str, str]]) -> list[LimitRow]:
    """The rows of the limits tables in ``(chunk_id, text)`` chunks given in page order: after a
    header row with a limit column (:data:`_LIMIT_COLUMN`), each row's first cell and that column's
    cell, each item once; a table runs on into the next chunk of its page until a line that is no row."""
    found: dict[str, LimitRow] = {}
    column = None
    for chunk_id, text in chunks:
        for line in text.split("\n"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not line.startswith("|"):
                column = column if not line.strip() else None
            elif limits := [i for i, cell in enumerate(cells) if _LIMIT_COLUMN.match(cell)]:
                column = limits[0]
            elif column is not None and len(cells) > column and cells[0] and not set(cells[0]) <= set("-: "):
                found.setdefault(cells[0], LimitRow(cells[0], cells[column], line.strip(), chunk_id))
    return list(found.values())


def measures(words: frozenset[str]) -> set[str]:
    """The measures (size, length, number) that stemmed ``words`` ask or name."""
    return {measure for measure, said in _MEASURED.items() if words & said}


def asked_limit(rows: Sequence[LimitRow], question: str) -> tuple[LimitRow, frozenset[str]] | None:
    """The row whose item ``question`` names: every word of the item that is no measure said by
    the question, and the item's measure ("X per Y" counts a number) the one it asks, when it asks
    one; of several, the one naming most ("columns per table" over "columns"); with the question's
    terms the row says (its item's, the limit's: "largest", and "big" for a size). ``None`` when
    the question asks no limit (:data:`ASKS_LIMIT`) or names no row's item: "How big can a table
    get?" is not "relation size", which the question does not say."""
    if not ASKS_LIMIT.search(question):
        return None
    said = term_set(question)
    asked = measures(said)
    limiting = said & term_set(" ".join(m[0] for m in ASKS_LIMIT.finditer(question)))  # "largest", "maximum"
    best, named = None, frozenset()
    for row in rows:
        per = _PER.search(row.item)
        item = term_set(_PER.sub(" ", row.item))
        subject = item - _MEASURE_WORDS
        measure = measures(item) or ({"number"} if per else set())
        if subject and subject <= said and (not asked or measure & asked) and len(subject) > len(named):
            best, named = row, subject | limiting | (said & frozenset().union(*(_MEASURED[m] for m in measure)))
    return (best, named) if best else None


def with_limit(store: ChunkStore, question: str, rows: Sequence[LimitRow], found: list[Chunk]) -> list[Chunk] | None:
    """``found`` led by the chunk of the limits row ``question`` asks (:func:`asked_limit`), carrying
    the row as its ``matched_entry``, the question's terms it says as ``matched_terms``, its limit
    as ``matched_limit`` (the answer's span) and ``entry_named`` true (the grader keeps it);
    ``None`` when it asks none."""
    if (asked := asked_limit(rows, question)) is None:
        return None
    row, said = asked
    if (chunk := store.fetch([row.chunk_id]).get(row.chunk_id)) is None:
        return None
    matched = {"matched_entry": row.row, "matched_terms": said, "matched_limit": row.limit, "entry_named": True}
    found = [{**c, **matched} if c["chunk_id"] == row.chunk_id else c for c in found]
    return joined(found, [{**chunk, **matched}], lead=True)
