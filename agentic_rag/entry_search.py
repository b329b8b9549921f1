"""Entries joined to a search's chunks: the chunks holding the definition-list entries, glossary
terms and reference-page name lines a question asks about ("What is a tablespace?": the glossary's
"- Tablespace"), found by literal lookups (:mod:`store.names`) where the hybrid search's ranks
miss them, and the term line of the entry a chunk continues.
"""

from __future__ import annotations

import re
from itertools import zip_longest
from typing import Sequence

from core.spelling import coined_words
from core.text import STOPWORDS, cross_reference
from core.tuning import Tuning
from deciders.answer_types import DEFAULT_OF
from deciders.lexicon import COMMAND_PHRASE, WHICH_NOUN, prose_statements
from deciders.spans import spans
from store.chunks import Chunk, ChunkStore
from store.filters import ChunkFilter
from store.names import name_with_part


def lock_modes(chunks: Sequence[Chunk]) -> list[str]:
    """The lock modes ``chunks`` name (:func:`deciders.spans.spans` of kind ``lock``: "ACCESS EXCLUSIVE",
    each of a conflicts list), each once, in order."""
    return list(dict.fromkeys(mode for c in chunks for mode in spans(c["text"], "lock")))


def with_continued_entries(store: ChunkStore, found: list[Chunk]) -> list[Chunk]:
    """``found``, each chunk that continues a definition-list entry headed by the entry's term line
    ("- effective_io_concurrency (integer)" before "The default is 1 …": ``continues`` holds the term,
    :meth:`store.names.NameIndex.continued_entries`). The stored chunk stays as it is."""
    continued = store.names.continued_entries(found)
    return [
        {**c, "text": f"- {continued[cid]}\n{c['text']}", "continues": continued[cid]}
        if (cid := c["chunk_id"]) in continued
        else c
        for c in found
    ]


def with_entries(
    store: ChunkStore,
    tuning: Tuning,
    names: list[str],
    query: str,
    found: list[Chunk],
    where: ChunkFilter | None,
    per_term: int,
    lead: bool = False,
    typed: bool = False,
) -> list[Chunk]:
    """``found`` joined by the chunks holding the entries of ``names`` (:meth:`store.names.NameIndex.entries`:
    a glossary's "Tablespace", a reference page's "TRUNCATE", a setting's "work_mem (integer)"),
    up to ``per_term`` per name from different pages ("fillfactor" is CREATE TABLE's and CREATE
    INDEX's): of up to ``tuning.entry_candidates`` candidates, first the page titled by the name
    (the reference page "psql", not a page quoting psql's banner), then those ``query`` ranks
    best. An entry that only refers to another name ("WAL" — "See Write-ahead log.") brings
    that name's entries too. See :func:`joined` for where they go.

    Args:
        store: the collection.
        tuning: its ``entry_candidates``.
        names: what the query asks to define, or the exact names it asks about.
        query: the search text.
        found: the hybrid search's chunks, best first.
        where: the search's filter.
        per_term: most entries (pages) per name.
        lead: put the entries first, those ``found`` holds too (a statement's reference page).
        typed: only a setting's entries, its name in any case ("TimeZone (string)" for "timezone").

    Returns:
        As many chunks as ``found``.
    """
    chosen: list[Chunk] = []
    names = list(names)
    for name in names:  # grows by the names an entry refers to ("WAL": "See Write-ahead log.")
        entries = store.fetch(store.names.entries(name, tuning.entry_candidates, where, typed=typed))
        ranks = store.rank_among(query, list(entries))
        titled = {  # the page's first such chunk
            cid: -int(c.get("locator", "#0").rsplit("#", 1)[1])
            for cid, c in entries.items()
            if c["title"].strip().lower() == name.lower()
        }
        order = sorted(entries, key=lambda cid: (cid in titled, titled.get(cid, 0), ranks.get(cid, 0.0), cid))
        pages: dict[str, str] = {}
        for cid in reversed(order):
            pages.setdefault(entries[cid]["source"], cid)
        picked = [entries[cid] for cid in list(pages.values())[:per_term]]
        chosen += picked
        referred = (cross_reference(c["text"], name) for c in picked)
        names += [t for t in dict.fromkeys(r for r in referred if r) if t not in names]
    return joined(found, chosen, lead)


def with_rows(
    store: ChunkStore, tuning: Tuning, name: str, query: str, found: list[Chunk], where: ChunkFilter | None
) -> list[Chunk]:
    """``found`` joined by the chunk holding a table row of ``name`` (:meth:`store.names.NameIndex.table_rows`:
    "| bigint | 8 bytes | …") that ``query`` ranks best of up to ``tuning.entry_candidates``; see :func:`joined`."""
    rows = store.fetch(store.names.table_rows(name, tuning.entry_candidates, where))
    ranks = store.rank_among(query, list(rows))
    best = sorted(rows, key=lambda cid: (-ranks.get(cid, 0.0), cid))[:1]
    return joined(found, [rows[cid] for cid in best])


def interleaved(first: list[Chunk], second: list[Chunk]) -> list[Chunk]:
    """The chunks of two rankings taking turns, ``first``'s best first, each chunk once (at its better
    place): a round-robin merge, as in team-draft interleaving (Radlinski et al. 2008)."""
    merged: dict[str, Chunk] = {}
    for chunk in (c for pair in zip_longest(first, second) for c in pair if c is not None):
        merged.setdefault(chunk["chunk_id"], chunk)
    return list(merged.values())


def joined(found: list[Chunk], chosen: Sequence[Chunk], lead: bool = False) -> list[Chunk]:
    """``found`` with the ``chosen`` chunks it lacks (each once), each displacing the last chunk of
    ``found`` that is not chosen (its best chunk stays); chosen chunks ``found`` holds stay where
    they are unless ``lead``, which puts every chosen chunk first. As many chunks as ``found``."""
    held = {c["chunk_id"] for c in found}
    chosen_ids = {c["chunk_id"] for c in chosen}
    keep = chosen_ids | {found[0]["chunk_id"]}
    spare = [c["chunk_id"] for c in found if c["chunk_id"] not in keep]
    added = list({c["chunk_id"]: c for c in chosen if c["chunk_id"] not in held}.values())[: len(spare)]
    gone = set(spare[len(spare) - len(added) :])
    result = [{**c, "score": found[0]["score"]} for c in added] + [c for c in found if c["chunk_id"] not in gone]
    if lead:  # stable: the chosen first, each other chunk in its order
        result.sort(key=lambda c: c["chunk_id"] not in chosen_ids)
    return result


def modes_said_of(store: ChunkStore, question: str, k: int, where: ChunkFilter | None = None) -> list[str]:
    """The lock modes named by the ``k`` chunks a search for the commands ``question`` writes in
    capitals and "lock mode" finds (:data:`deciders.lexicon.COMMAND_PHRASE`; "CREATE INDEX CONCURRENTLY
    lock mode"): where a lock question's own search found none; empty when it names no command."""
    commands = COMMAND_PHRASE.findall(question)
    return lock_modes(store.search(f"{' '.join(commands)} lock mode", k, where=where)) if commands else []


def named_statement(store: ChunkStore, question: str, where: ChunkFilter | None = None) -> str | None:
    """The first of the SQL statements a how-to names in prose (:func:`deciders.lexicon.prose_statements`)
    that has an entry (a reference page's name line, "CREATE USER — define a new database
    role"), or ``None``."""
    return next((s for s in prose_statements(question) if store.names.entries(s, 1, where)), None)


def defaulted_setting(store: ChunkStore, question: str, where: ChunkFilter | None = None) -> list[str]:
    """The word ``question`` asks the default of (:data:`deciders.answer_types.DEFAULT_OF`: "the default timezone";
    else the noun after "which"/"what", :data:`deciders.lexicon.WHICH_NOUN`: "what port … if I never
    touch the config?", unless a program is named: "What encoding does initdb use?" is initdb's)
    when it is a setting's entry term in the collection ("TimeZone (string)":
    :meth:`store.names.NameIndex.entries` with ``typed``), or a part of the one setting name that
    has it as a part ("which address …?": "listen_addresses (string)"), as a one-item list; else empty."""
    found = DEFAULT_OF.search(question) or (not coined_words(question) and WHICH_NOUN.search(question))
    word = found and found[1]
    if not word or word.lower() in STOPWORDS or "_" in word:
        return []
    if store.names.entries(word, 1, where, said=False, typed=True):
        return [word]
    ids = store.names.entries(word.lower(), 5, where, said=False, typed=True, part=True)
    term = re.compile(rf"(?im)^[ \t*•-]*({name_with_part(re.escape(word))}) +\(")  # the word alone has no entry (above)
    names = {m[1].lower() for chunk in store.fetch(ids).values() for m in term.finditer(chunk["text"])}
    return list(names) if len(names) == 1 else []
