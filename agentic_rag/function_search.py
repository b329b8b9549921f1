"""A built-in function asked for by what it does ("How do I cancel a running query?"): the rows of
the collection's function tables ("| pg_cancel_backend ( pid integer ) → boolean Cancels the current
query of the session …"), each scored on its own against the question, the chunk of a row that
says nearly all of it joined to the search's. A table chunk holds many functions, and one row's
words are too few for the chunk to rank: the row is found the way a reader scans the table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

from agentic_rag.entry_search import joined
from core.text import exact_names, term_set, terms
from deciders.lexicon import prose_statements
from store.chunks import Chunk, ChunkStore

FUNCTION_ROW = re.compile(
    r"^\| (?P<name>[a-z_][\w.]*)(?: \([^)|]*\))?[^|→]*→ [^A-Z|\n]*(?P<said>[A-Z][^|\n]*?(?:[.?;](?= |$)|(?= \|)|$)).*$",
    re.M,
)
"""A function table's row: its signature, "→", the result type (lower case: "timestamp with time
zone") and its first sentence, what the function does ("Returns the name of the sequence associated
with a column …", not its later notes)."""
_EVERY_ROW = frozenset(terms("function returns much many get"))
"""Words any row would say ("Which function returns …?") or none ("how much disk space …?", "how do I get …?")."""
_LOOKING = re.compile(r"\b(?:see|show|list|check|view|look)\b", re.I)
"""A question asking to see something ("How can I see which locks are held?"): a function that
reports (:data:`_REPORTING`) answers it, not one that acts ("Releases all advisory locks held …")."""
_REPORTING = re.compile(r"^(?:Returns|Computes|Reports|Lists|Shows|Gets|Tests|Checks)\b")
_EXCLUDING = re.compile(r"\bexcluding\s[^,;(]*")
"""What a row leaves out: "Computes the disk space used by the specified table, excluding indexes"."""
_WITHOUT = re.compile(r"\bwithout\s+([^,.;?]+)", re.I)
"""What a question asks not to happen ("… without restarting the server"): no row says it."""
_CALLED = re.compile(r"\b([a-z_][\w.]*)\(\s*\)")
"""A function a question names as a call: "concat()", "now()"."""
MIN_COVERAGE = 0.7
"""The weighted share of the question's terms a row must say to answer it: "Deletes a replication
origin" says 0.65 of "How do I delete a database?", which no function does."""


@dataclass(frozen=True)
class FunctionRow:
    """One function of a table: its name, what its row says after the arrow, the row as written and
    the chunk holding it."""

    name: str
    said: str
    row: str
    chunk_id: str


_OPERATOR_ROW = re.compile(r"^\| [a-z_][\w.]*(?: \[\])? (?P<operator>[-#@<>=!~&?^*/%+|]{1,3}) ")
"""An operator table's row ("| json ->> text → text Extracts JSON object field …"): its name is the operator,
not its left operand's type."""


def function_rows(chunks: Sequence[tuple[str, str]]) -> list[FunctionRow]:
    """The function rows (:data:`FUNCTION_ROW`) of ``(chunk_id, text)`` chunks, each once (the first
    chunk of overlapping ones holding it); an operator's row is named by its operator (:data:`_OPERATOR_ROW`)."""
    found: dict[tuple[str, str], FunctionRow] = {}
    for chunk_id, text in chunks:
        for row in FUNCTION_ROW.finditer(text):
            name = (operator := _OPERATOR_ROW.match(row[0])) and operator["operator"] or row["name"]
            found.setdefault((name, row["said"]), FunctionRow(name, row["said"].strip(), row[0], chunk_id))
    return list(found.values())


_INTO = re.compile(r"\binto\b", re.I)
_TO = re.compile(r"\b(?:into|to)\b", re.I)


def _reversed(question: str, said: str) -> bool:
    """Whether a row says the other way round what the question asks turned into something: "rows
    into a JSON array" against "Expands the … JSON array of objects to a set of rows"."""
    if not (asked := _INTO.search(question)) or not (done := _TO.search(said)):
        return False
    source, target = term_set(question[: asked.start()]), term_set(question[asked.end() :])
    before, after = term_set(said[: done.start()]), term_set(said[done.end() :])
    return bool(source & after - before) and bool(target & before - after)


def best_function(rows: Sequence[FunctionRow], weights: Mapping[str, float], question: str = "") -> FunctionRow | None:
    """The row whose first sentence and function name say the largest weighted share of the
    question's terms (``weights``: term → IDF; what a row excludes, "excluding indexes", unsaid; what the
    question asks not to happen, "without restarting the server", not needed), at
    least :data:`MIN_COVERAGE`; a tie goes to the row whose name says more of them (``current_schema``
    over ``pg_my_temp_schema``, ``pg_database_size`` over ``pg_tablespace_size``). A row saying the
    other way round what ``question`` asks turned into something is no answer (:func:`_reversed`).
    ``None`` when no row says enough."""
    unwanted = set().union(*(term_set(m[1]) for m in _WITHOUT.finditer(question)))
    unwanted -= term_set(_WITHOUT.sub(" ", question))  # unless the question also asks for it
    weights = {t: w for t, w in weights.items() if t not in _EVERY_ROW and t not in unwanted}
    total = sum(weights.values())

    def share(text: str) -> float:
        words = term_set(_EXCLUDING.sub(" ", text).replace("_", " "))
        return sum(w for t, w in weights.items() if t in words) / total if total else 0.0

    rows = [row for row in rows if not _reversed(question, row.said)] if question else rows
    scored = [(share(f"{row.said} {row.name}"), share(row.name), row) for row in rows]
    best = max(scored, key=lambda s: s[:2], default=None)
    return best[2] if best and best[0] >= MIN_COVERAGE else None


def with_function(
    store: ChunkStore,
    question: str,
    rows: Sequence[FunctionRow],
    found: list[Chunk],
    weigh: Callable[[str], Mapping[str, float]],
) -> list[Chunk] | None:
    """``found`` joined by the chunk of the function row that says what ``question`` asks
    (:func:`best_function` with ``weigh``'s focus terms), carrying the row as its ``matched_entry``
    and the function's name as its ``matched_term`` (the short answer of a how-to); ``None`` when the
    question names code itself (it is searched by name), asks with a statement's verb ("How do I
    remove a column?" is ALTER TABLE's, :func:`deciders.lexicon.prose_statements`, not a function
    "Removes …") or no row says enough of it; a question asking to see something is answered only
    by a row that reports (:data:`_LOOKING`)."""
    if exact_names(question) or prose_statements(question):
        return None
    rows = [r for r in rows if _REPORTING.match(r.said)] if _LOOKING.search(question) else rows
    if not (best := best_function(rows, weigh(question), question)):
        return None
    if (chunk := store.fetch([best.chunk_id]).get(best.chunk_id)) is None:
        return None
    matched = {"matched_entry": best.row, "matched_term": best.name}
    found = [{**c, **matched} if c["chunk_id"] == best.chunk_id else c for c in found]
    return joined(found, [{**chunk, **matched}])


def with_called_function(
    store: ChunkStore, question: str, rows: Sequence[FunctionRow], found: list[Chunk]
) -> list[Chunk] | None:
    """``found`` joined by the chunks of the rows of the functions ``question`` names as calls
    ("Does concat() give me NULL back …?": "| concat ( val1 "any" … ) → text … NULL arguments are
    ignored."), each carrying its row as ``matched_entry``, the function's name as ``matched_names``
    (its terms as ``matched_terms``) and ``entry_named`` true (the grader keeps it); ``None`` when it
    names none a row has.
    A table chunk holds many rows, so a function's own row seldom ranks by the question's other words."""
    called = set(_CALLED.findall(question.lower()))
    named = {
        r.chunk_id: {
            "matched_entry": r.row,
            "matched_names": r.name,
            "matched_terms": term_set(r.name),
            "entry_named": True,
        }
        for r in rows
        if r.name in called
    }
    if not named:
        return None
    found = [{**c, **named[c["chunk_id"]]} if c["chunk_id"] in named else c for c in found]
    return joined(found, [{**chunk, **named[cid]} for cid, chunk in store.fetch(list(named)).items()])
