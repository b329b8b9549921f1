"""A question's names spelled as the collection spells them, before they are searched: a typo
read as meant ("shared_bufers" as ``shared_buffers``, "defualt" as "default", "pscl" as "psql":
a word no chunk holds, one edit from one the collection does — Norvig 2007, "How to Write a
Spelling Corrector", with the collection's own words as the dictionary — instead of declined as a
name the documents "never mention"), a setting written with spaces as its entry's name
("autovacuum naptime" as ``autovacuum_naptime``), an everyday "max" as "maximum" and "whats" as "what's"."""

from __future__ import annotations

import difflib
import re
from typing import Sequence

from core.spelling import spellings, unknown_words
from core.text import exact_names
from deciders.answer_types import expected_type
from deciders.lexicon import spaced_names
from store.chunks import ChunkStore
from store.lexical import lucene_idf

_KIND_NOUNS = frozenset({"file", "files", "setting", "parameter", "option", "command", "mode", "level", "method"})
"""Nouns a "which/what X …?" question ends the kind it asks for with ("config file"): no setting's name then."""
NAME_LIKENESS = 0.9
"""Least ``difflib`` ratio of a misspelt snake_case name to the setting it is read as: "maintainance_work_mem"
to ``maintenance_work_mem`` 0.95; ``work_mem`` to ``work_mem_x`` would be 0.89."""
MIN_CHUNKS = 2
"""Chunks that must hold a word for a misspelling to be read as it: one stray mention is no evidence."""
_MAX = re.compile(r"\bmax\b(?![\s_]*\()")
"""The everyday "max" ("the max number of columns"), not the aggregate ``max()``: documentation
says "maximum", and "max" searched finds ``MAX()`` (a release note's "MIN() or MAX() aggregates")."""


_UNAPOSTROPHED = re.compile(r"\b(what|how|where|who|when|why|which|that|there)s\b", re.I)
"""A question word's "'s" typed without its apostrophe: "Whats the function to …" asks as "What's"."""


_AS_PROGRAM = re.compile(r"\s+(?:-|(?:program|command|binary|executable|process)\b)")
"""What follows a name used as a program's: "postgres -D", "the postgres process"."""


def own_names_spelled(question: str, names: Sequence[str]) -> str:
    """``question`` with each short form of a name the collection is about written in full
    (:meth:`store.reads.CollectionReads.own_names`): "Postgres" is "PostgreSQL", the manual's own
    name, which most of its chunks hold, not the program ``postgres`` its page is titled by —
    unless the question uses it as a program (:data:`_AS_PROGRAM`: "postgres -D", "the postgres process")."""
    for name in names:

        def full(short: re.Match, name: str = name) -> str:
            shorter = name.lower().startswith(short[0].lower()) and len(short[0]) < len(name)
            return name if shorter and not _AS_PROGRAM.match(short.string, short.end()) else short[0]

        question = re.sub(rf"\b{re.escape(name[:5])}[a-z]*\b(?![_.])", full, question, flags=re.I)
    return question


def spelled_out(question: str) -> str:
    """``question`` with an everyday "max" written "maximum" (:data:`_MAX`; after a setting written
    with spaces is spelled as its name: "max connections" is ``max_connections``) and a question
    word's "'s" typed without its apostrophe restored ("whats" is "what's", :data:`_UNAPOSTROPHED`)."""
    return _UNAPOSTROPHED.sub(r"\1's", _MAX.sub("maximum", question))


def corrected(store: ChunkStore, question: str, candidates: int, settings: Sequence[str] = ()) -> str:
    """``question`` with each of its first ``candidates`` :func:`core.spelling.unknown_words` that no chunk holds
    (:meth:`store.names.NameIndex.absent`) replaced by the spelling the collection holds: for a
    snake_case name the first of its :func:`core.spelling.spellings` some chunk contains, for a
    word the variant most chunks hold (at least :data:`MIN_CHUNKS`, by its stem) that one holds as
    written ("automaticaly" is "automatically", not "automatical", whose stem is the same); a snake_case name
    with none, the one of ``settings`` (the collection's setting names) it is most like, at least
    :data:`NAME_LIKENESS` (``difflib``'s ratio: "maintainance_work_mem" is ``maintenance_work_mem``, two
    edits). A word with no such spelling is left as written (a name the documents do not mention)."""
    held_idf = None  # the idf of a word MIN_CHUNKS chunks hold, read once
    for word in store.names.absent(unknown_words(question)[:candidates]):
        variants = spellings(word)
        if "_" in word:
            absent = set(store.names.absent(variants[:8]))
            meant = next((c for c in variants[:8] if c not in absent), None)
            meant = meant or next(iter(difflib.get_close_matches(word, settings, n=1, cutoff=NAME_LIKENESS)), None)
        else:  # the most held variants, by their rarest lexeme's idf, the first some chunk holds as written
            held_idf = lucene_idf(store.lexical.size(), MIN_CHUNKS) if held_idf is None else held_idf
            held = sorted((value, c) for c, value in store.lexical.idf(variants).items() if value <= held_idf)
            absent = set(store.names.absent([c for _, c in held[:5]]))
            meant = next((c for _, c in held[:5] if c not in absent), None)
        if meant:
            question = re.sub(rf"(?<![\w.-]){re.escape(word)}(?![\w.-])", meant, question)
    return question


def spelled_as_entries(store: ChunkStore, question: str, candidates: int) -> str:
    """``question`` with each setting-like name written with spaces (:func:`deciders.lexicon.spaced_names`:
    "the default autovacuum naptime") that is the term of a typed entry in the collection
    (:meth:`store.names.NameIndex.entries`: "autovacuum_naptime (integer)"; "default_X" when that
    is one, after "default" or in a question asking for a default; its last word in the plural when
    the entry says it so: "shared buffer" is ``shared_buffers``) written as the entry spells it, to be
    searched and weighed as the exact name; a question naming anything as code is returned as it is.
    At most ``candidates`` names are looked up."""
    if exact_names(question):
        return question
    for name in spaced_names(question)[:candidates]:
        spaced = re.compile(r"\b" + r"\s+".join(name.split("_")) + r"\b")
        if name.rsplit("_", 1)[-1] in _KIND_NOUNS and re.search(rf"(?i)\b(?:which|what)\s+{spaced.pattern}", question):
            continue  # "Which config file decides …?" asks for a file, not the setting config_file
        default = re.search(rf"(?i)\bdefault\s+{spaced.pattern}", question) or expected_type(question) == "default"
        if default and store.names.entries(f"default_{name}", 1, said=False, typed=True):
            name = f"default_{name}"  # "the default transaction isolation", "what statistics target … by default?"
        if not spaced.search(question):
            continue
        # the entry's name may say its last word in the plural: "the shared buffer cache" is shared_buffers
        if spelled := next((n for n in (name, f"{name}s") if store.names.entries(n, 1, said=False, typed=True)), None):
            question = spaced.sub(spelled, question)
    return question
