"""A limit asked of something ("How large can a field value be?", "How many indexes can a table
have?"), or the largest or smallest value of a type ("… a smallint can hold?"): the rows of the
collection's limits tables ("| Item | Upper Limit | Comment |", then "| field size | 1 GB | |") and type
tables ("| Name | … | Range |"), the row whose item the question names joined to the search. One
table row among many says too few words for its chunk to rank, and its item is said in a
manual's own terms ("field size"), the question's in everyday ones ("how large … a field value").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from agentic_rag.entry_search import joined
from core.text import term_set
from deciders.answer_types import ASKS_LIMIT
from store.chunks import Chunk, ChunkStore

_LIMIT_COLUMN = re.compile(r"^(?:upper )?limit$|^max(?:imum)?$", re.I)
"""A limits table's value column heading: "Upper Limit", "Limit", "Maximum"."""
_BOUND_COLUMNS = ("Range", "Low Value", "High Value")
"""A type table's columns of the values a type holds: "| smallint | … | -32768 to +32767 |", "| date | … | 4713 BC |
5874897 AD | 1 day |"."""
_HIGH = re.compile(r"\b(?:largest|biggest|highest|greatest|max(?:imum)?|latest)\b", re.I)
_LOW = re.compile(r"\b(?:smallest|lowest|least|min(?:imum)?|earliest|most negative)\b", re.I)
_RANGE = re.compile(r"\brange of (?:values? )?(?:(?:a|an|the|type)\s+)?[a-z]", re.I)
"""A type's whole range asked ("the range of smallint", "the range of values of type date")."""
_HELD = re.compile(r"\b(?:hold|store|represent|accept|fit)s?\b|\bvalues? of type\b", re.I)
"""A question asking what a type holds ("the largest value a smallint can hold", "a value of type date")."""
_MEASURES = {
    "size": ("big", "bigger", "biggest", "large", "larger", "largest", "size", "huge"),
    "length": ("long", "longer", "longest", "length"),
    "number": ("many", "number"),
}
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
    low: str | None = None
    """A type's range row: its lowest value (``limit`` is its highest); ``None`` in a limits table."""


def limit_rows(chunks: Sequence[tuple[str, str]]) -> list[LimitRow]:
    """The rows of the limits tables in ``(chunk_id, text)`` chunks given in page order: after a
    header row with a limit column (:data:`_LIMIT_COLUMN`), each row's first cell and that column's
    cell, each item once; a table runs on into the next chunk of its page until a line that is no row.
    After a header with a type's values (:data:`_BOUND_COLUMNS`), each row's type (its optional parts left
    out: "timestamp" of "timestamp [ (p) ] [ without time zone ]") with its highest and lowest value ("A to B"
    of a range)."""
    found: dict[str, LimitRow] = {}
    column: int | dict[str, int] | None = None
    for chunk_id, text in chunks:
        for line in text.split("\n"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not line.startswith("|"):
                column = column if not line.strip() else None
            elif limits := [i for i, cell in enumerate(cells) if _LIMIT_COLUMN.match(cell)]:
                column = limits[0]
            elif bounds := {cell: i for i, cell in enumerate(cells) if cell in _BOUND_COLUMNS}:
                column = bounds
            elif column is None or not cells[0] or set(cells[0]) <= set("-: "):
                continue
            elif isinstance(column, dict) and (bound := _bounds(cells, column)):
                name = re.sub(r"\s*\[[^]]*\]", "", cells[0]).strip()
                found.setdefault(name, LimitRow(name, bound[1], line.strip(), chunk_id, low=bound[0]))
            elif isinstance(column, int) and len(cells) > column:
                found.setdefault(cells[0], LimitRow(cells[0], cells[column], line.strip(), chunk_id))
    return list(found.values())


def with_forms(rows: Sequence[LimitRow], forms: Mapping[str, str]) -> list[LimitRow]:
    """``rows`` and, for each limits row whose item names a term the collection calls the common form of
    (:meth:`store.reads.CollectionReads.common_forms`: "A table is the most common form of relation"), the row
    again with that form in the term's place: what limits every relation limits a table ("relation size" is
    "table size", "relations per database" "tables per database"); an item already stated keeps its own row."""
    stated = {row.item for row in rows}
    formed = [
        replace(row, item=item)
        for row in rows
        for kind, form in forms.items()
        if row.low is None and (item := re.sub(rf"\b{re.escape(kind)}(s?)\b", rf"{form}\1", row.item)) not in stated
    ]
    return [*rows, *formed]


def _bounds(cells: Sequence[str], columns: dict[str, int]) -> tuple[str, str] | None:
    """(lowest, highest) value of a type table's row: its "Low Value" and "High Value" cells, or its "Range"
    cell's "A to B"; ``None`` for a range said otherwise ("15 decimal digits precision")."""
    cell = {name: cells[i] for name, i in columns.items() if i < len(cells)}  # the row's cell of each column
    if "Low Value" in cell and "High Value" in cell:
        return cell["Low Value"], cell["High Value"]
    ranged = re.fullmatch(r"(\S+) to (\S+)", cell.get("Range", ""))
    return (ranged[1], ranged[2]) if ranged else None


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
    best, named, most = None, frozenset(), frozenset()
    for row in (r for r in rows if r.low is None):  # a limits table's rows
        per = _PER.search(row.item)
        item = term_set(_PER.sub(" ", row.item))
        subject = item - _MEASURE_WORDS
        measure = measures(item) or ({"number"} if per else set())
        if subject and subject <= said and (not asked or measure & asked) and len(subject) > len(most):
            best, most = row, subject
            named = subject | limiting | (said & frozenset().union(*(_MEASURED[m] for m in measure)))
    return (best, named) if best else None


def asked_bound(rows: Sequence[LimitRow], question: str) -> tuple[LimitRow, str] | None:
    """The type table row of the type ``question`` asks the largest or the smallest value of (:data:`_HELD`: "What
    is the largest value a smallint can hold?", "What's the latest year a value of type date can represent?"),
    with that value, or the range of (:data:`_RANGE`), with "lowest to highest"; of types it names in full, the
    one of most words. ``None`` when it asks no range and neither or both extremes, or names no type: "the largest
    integer not greater than its argument" holds nothing."""
    high, low, span = _HIGH.search(question), _LOW.search(question), _RANGE.search(question)
    if not (span or (_HELD.search(question) and bool(high) != bool(low))):
        return None
    said = term_set(question)
    named = [r for r in rows if r.low is not None and term_set(r.item) <= said]
    if (best := max(named, key=lambda r: len(term_set(r.item)), default=None)) is None:
        return None
    return best, f"{best.low} to {best.limit}" if span else best.limit if high else best.low


def with_limit(store: ChunkStore, question: str, rows: Sequence[LimitRow], found: list[Chunk]) -> list[Chunk] | None:
    """``found`` led by the chunk of the limits row ``question`` asks (:func:`asked_limit`), or of the type
    whose largest or smallest value it asks (:func:`asked_bound`), carrying the row as its ``matched_entry``,
    the question's terms it says as ``matched_terms`` (a type's row says all the question asks), its limit
    (or the asked value) as ``matched_limit`` (the answer's span) and ``entry_named`` true (the grader keeps
    it); ``None`` when it asks none."""
    if (asked := asked_limit(rows, question)) is not None:
        row, said, value = *asked, asked[0].limit
    elif (bounded := asked_bound(rows, question)) is not None:
        row, said, value = bounded[0], term_set(question), bounded[1]  # the row answers all it asks
    else:
        return None
    if (chunk := store.fetch([row.chunk_id]).get(row.chunk_id)) is None:
        return None
    matched = {"matched_entry": row.row, "matched_terms": said, "matched_limit": value, "entry_named": True}
    found = [{**c, **matched} if c["chunk_id"] == row.chunk_id else c for c in found]
    return joined(found, [{**chunk, **matched}], lead=True)
