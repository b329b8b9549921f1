"""The entries a question asks about, joined to its search's chunks: one literal lookup a question,
the first that applies — the option of a program it names, the entry a definition asks for, a
setting's default, a table row of what it measures, a lock mode's entry, a statement named in
prose, a function said in words or named as a call (:mod:`agentic_rag.entry_search`,
:mod:`agentic_rag.option_search`, :mod:`agentic_rag.function_search`). A hybrid search ranks
passages that resemble the question; the entry that answers it is often one line of a long page.
"""

from __future__ import annotations

from typing import Callable, Mapping, Sequence

from agentic_rag.entry_search import (
    defaulted_setting,
    lock_modes,
    modes_said_of,
    named_statement,
    with_continued_entries,
    with_entries,
    with_rows,
)
from agentic_rag.function_search import FunctionRow, with_called_function, with_function
from agentic_rag.limit_search import LimitRow, with_limit
from agentic_rag.option_search import with_option
from core.text import exact_names
from core.tuning import Tuning
from deciders.answer_types import default_check, definition_subject, expected_type
from deciders.lexicon import WHICH_NOUN, measured_subject
from store.chunks import Chunk, ChunkStore
from store.filters import ChunkFilter


def with_asked_entries(
    store: ChunkStore,
    tuning: Tuning,
    query: str,
    found: list[Chunk],
    weigh: Callable[[str], Mapping[str, float]],
    tables: tuple[Sequence[FunctionRow], Sequence[LimitRow]],
    where: ChunkFilter | None = None,
) -> list[Chunk]:
    """``found`` (a hybrid search's chunks for ``query``, best first) joined or led by the chunks
    of the entry ``query`` asks about, as many chunks as ``found``; each chunk continuing an entry
    carries its term line (:func:`agentic_rag.entry_search.with_continued_entries`).

    Args:
        store: the chunk store (its literal lookups, :mod:`store.names`).
        tuning: ``entry_share`` and the other entry-joining knobs.
        query: the searched text.
        found: the search's chunks.
        weigh: a question's focus terms with their IDF (option and function rows are scored by them).
        tables: the collection's function table rows and limits table rows.
        where: metadata filter / source allowlist.
    """
    if not found:
        return found
    functions, limits = tables
    kind = "default" if default_check(query) else expected_type(query)  # "is it X?" asks X's default
    if asked := with_option(store, query, None, found, weigh, where):
        found = asked  # led by the entry of an option it names: "What does pg_restore --clean do?"
    elif term := definition_subject(query):
        found = with_entries(store, tuning, [term], query, found, where, per_term=1)
    elif kind == "default" and (asked := with_option(store, query, kind, found, weigh, where)):
        found = asked  # the option of the program it names: "pg_ctl stop without choosing a mode" → -m's default
    elif kind == "default" and (names := exact_names(query) or defaulted_setting(store, query, where)):
        # a default is stated in the setting's entry: every entry of the name, one a page, first; and its rest
        typed = not exact_names(query)
        found = with_entries(store, tuning, names, query, found, where, per_term=2, lead=True, typed=typed)
        tails = list(store.fetch(store.names.entry_tails(found, names)).values())
        found = (found[:1] + tails + found[1:])[: len(found)]
    elif kind in ("number", "quantity", "date", "other") and (asked := with_limit(store, query, limits, found)):
        found = asked  # led by the limits table's row of what it names: "how large … a field value": "field size"
    elif kind in ("number", "quantity") and (noun := WHICH_NOUN.search(query)):
        # "what port …?": the entries the noun names (a setting's "port (integer)"), one a page
        found = with_entries(store, tuning, [noun[1].lower()], query, found, where, per_term=2)
    elif kind == "quantity" and (measured := measured_subject(query)):
        found = with_rows(store, tuning, measured, query, found, where)  # "| bigint | 8 bytes |"
    elif kind == "lock" and (modes := lock_modes(found) or modes_said_of(store, query, len(found), where)):
        # the entries of the lock modes found say what takes each ("ACCESS EXCLUSIVE (AccessExclusiveLock)"),
        # and those of the modes these entries name (their conflicts): the one taken may not be named before
        for _ in range(2):
            found = with_entries(store, tuning, modes, query, found, where, per_term=1, typed=True)
            if not (more := [m for m in lock_modes(found) if m not in modes]):
                break
            modes += more
    elif kind == "command" and (asked := with_option(store, query, kind, found, weigh, where)):
        found = asked  # led by the option it asks of a program: "Which initdb switch …?" → -k, "with -j"
    elif statement := named_statement(store, query, where):  # "create a user": CREATE USER
        found = with_entries(store, tuning, [statement], query, found, where, per_term=1, lead=True)
    elif kind == "command" and (asked := with_function(store, query, functions, found, weigh)):
        found = asked  # joined by the function whose row says it: "cancel a running query", pg_cancel_backend
    elif kind != "command" and (asked := with_called_function(store, query, functions, found)):
        found = asked  # joined by the row of a function it asks about: "Does concat() …?", not "… Which function …?"
    return with_continued_entries(store, found)
