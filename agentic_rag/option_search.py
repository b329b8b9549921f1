"""A program's option asked in words ("Which initdb switch turns on checksums for data pages?"):
the option entries of the program's reference page ("- -k" / "--data-checksums" / "- Use checksums
on data pages …"), each scored on its own against the question, the chunk of the best one joined
to the search's. A chunk holds many options, so ranking chunks finds the page, not the option.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from agentic_rag.entry_search import joined
from core.spelling import coined_words
from core.text import exact_names, term_set, terms
from core.wording import DEFAULT_IDIOM
from deciders.negation import negated
from store.chunks import Chunk, ChunkStore
from store.filters import ChunkFilter

_OPTION_LINE = re.compile(r"^- ((?:-{1,2}[A-Za-z?]|\\[A-Za-z?!]{1,20}(?:\[|\s|$))[^\n]*)$")
"""An option's or a meta-command's term line in a definition list: "- -k", "- --jobs=number-of-jobs",
"- \\timing [ on | off ]"."""
_OPTION_WORD = re.compile(r"\b(?:flag|switch|option|argument)s?\b", re.I)
"""A question asking for an option outright: "Which initdb switch …?"."""
_NAMED_OPTION = re.compile(r"(?<![\w-])(-{1,2}[A-Za-z][\w-]*|\\[A-Za-z]\w*)")
"""An option or meta-command a question names as written: "-j", "--jobs", "\\timing"."""
_DENSE_SHARE = 0.5
"""How much the entry's embedding similarity to the question adds to its word coverage."""
_LETTERS = re.compile(r"\bletters ((?:\w, )*\w),? and (\w) stand for (.+?),? respectively", re.I)
"""A group entry's key to its commands: "the letters E, i, m, s, t, and v stand for foreign table, index,
materialized view, sequence, table, and view, respectively" (psql's "\\dE \\di \\dm \\ds \\dt \\dv")."""
_LISTED = re.compile(
    r"\blist(?:s|ing)?\s+(?:of\s+)?(?:(?:all|the|my)\s+)*(?P<things>[\w ]+?)"
    r"(?=\s+(?:in|on|of|from|that|which)\b|[?.,]|$)",
    re.I,
)
"""What a question asks a list of: "tables" of "How do I list all tables in psql?", "Which command shows
me the list of tables?"."""
_MEMBER_SHARE = 0.5
_NAME_SHARE = 0.2
"""Added for an entry whose long option name of two or more words the question says word for word ("dump
only the data": ``--data-only``), stop words included: "only" tells ``--data-only`` from
``--enable-row-security``; a one-word name ("--list") is a word many questions say."""
"""How much a group entry gains when the question names a thing one of its commands' letters stands for."""


@dataclass(frozen=True)
class OptionEntry:
    """One option of a reference page: its term lines ("-k --data-checksums"), what it does (its
    description's first lines) and the chunk holding it."""

    terms: str
    description: str
    chunk_id: str


def asks_of(question: str, program: str) -> bool:
    """Whether ``question`` asks ``program`` to do something ("make pg_restore use …", "With
    vacuumdb, how do I …", "In psql, how do I …"), not only names it ("an archive that pg_restore
    can read" is pg_dump's)."""
    asking = r"make|get|tell|have|let|run|with|using|in|inside|from"
    return bool(re.search(rf"\b(?:{asking})\s+(?:the\s+)?{re.escape(program)}\b", question, re.I))


def option_entries(chunks: Sequence[tuple[str, str]]) -> list[OptionEntry]:
    """The option entries of a page's ``(chunk_id, text)`` chunks, in order: a term line ``- -x``,
    its further forms on lines of their own ("--data-checksums"), then the description's
    ``- `` lines up to the next term line (the first three). An entry cut by a chunk boundary is
    the first chunk's, with what that chunk holds of it; one repeated by overlapping chunks, once."""
    found: dict[str, OptionEntry] = {}
    for chunk_id, text in chunks:
        term_lines, description = None, []
        for line in [*text.split("\n"), "- -"]:  # a last term line closes the last entry
            if (option := _OPTION_LINE.match(line)) or line == "- -":
                if term_lines and description:
                    found.setdefault(term_lines, OptionEntry(term_lines, " ".join(description[:3]), chunk_id))
                term_lines, description = (option[1] if option else None), []
            elif term_lines is not None and not description and not line.startswith("- "):
                term_lines = f"{term_lines} {line.strip()}"  # "--data-checksums" under "- -k"
            elif term_lines is not None and line.startswith("- "):
                description.append(line[2:])
    return list(found.values())


def lettered_member(entry: OptionEntry, question: str) -> str | None:
    """The command of a group entry (:data:`_LETTERS`) whose letter stands for the things ``question``
    asks a list of (:data:`_LISTED`), the longest such thing first ("\\dt" for "list the tables",
    "\\dE" for "list the foreign tables"); ``None`` for an entry with no such key, or a question
    listing none of its things ("list the columns of a table" lists columns)."""
    key, listed = _LETTERS.search(entry.description), _LISTED.search(question)
    letters = [*key[1].split(", "), key[2]] if key and listed else []
    things = re.split(r",\s*(?:and\s+)?|\s+and\s+", key[3]) if key and listed else []
    asked = term_set(listed["things"]) if listed else frozenset()
    for letter, thing in sorted(zip(letters, things, strict=False), key=lambda pair: -len(pair[1])):
        member = re.search(rf"\\[A-Za-z]*?{re.escape(letter)}(?=[\[\s]|$)", entry.terms)
        if len(letters) == len(things) and term_set(thing) <= asked and member:
            return member.group(0)
    return None


def best_option(
    question: str,
    entries: Sequence[OptionEntry],
    weights: Mapping[str, float],
    embeddings: Embeddings | None = None,
) -> OptionEntry | None:
    """The entry that says most of ``question``: the weighted share of the question's terms
    (``weights``: term → IDF) its description and option names hold, plus half its embedding's
    cosine similarity to the question's, ``_NAME_SHARE`` when it says a long option name word for word,
    and ``_MEMBER_SHARE`` for a group entry one of whose
    commands stands for a thing the question names (:func:`lettered_member`); ``None`` when no entry
    holds a question term."""
    total = sum(weights.values())
    if not entries or not total:
        return None
    meant = DEFAULT_IDIOM.sub(" default ", question)  # "without choosing a mode" asks a default, negates nothing
    denied = frozenset(t for t in weights if negated(meant, frozenset({t})))
    said = [_said_alike(e, weights, denied) for e in entries]
    coverage = np.array([sum(w for t, w in weights.items() if t in words) / total for words in said])
    score = coverage + _MEMBER_SHARE * np.array([lettered_member(e, question) is not None for e in entries])
    asked = set(re.findall(r"[a-z]+", question.lower()))  # stop words too: "only" of "--data-only"
    score += _NAME_SHARE * np.array([any(len(n) > 1 and set(n) <= asked for n in _long_names(e)) for e in entries])
    if embeddings is not None:
        vectors = np.asarray(embeddings.embed_documents([question, *(f"{e.terms}: {e.description}" for e in entries)]))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
        score += _DENSE_SHARE * (vectors[1:] @ vectors[0])
    best = int(np.argmax(score))
    return entries[best] if coverage[best] > 0 else None


def _long_names(entry: OptionEntry) -> list[list[str]]:
    """The words of each long option name of ``entry`` ("--data-only" → ["data", "only"])."""
    return [re.findall(r"[a-z]+", name) for name in re.findall(r"--([a-z][\w-]*)", entry.terms)]


def _said_alike(entry: OptionEntry, weights: Mapping[str, float], denied: frozenset[str]) -> frozenset[str]:
    """The terms ``entry``'s description and option names say as the question asks them (``denied``:
    its terms it negates): a term one of them negates and the other does not is not said ("Dump only
    the data, not the schema" says no "schema" for "… only the schema without any data"), and a
    negation both make says the question's negation words ("not data" says "without any data")."""
    words = term_set(f"{entry.description} {entry.terms.replace('-', ' ')}")
    asked = [t for t in weights if t in words]
    in_question = denied & frozenset(asked)
    in_entry = {t for t in asked if negated(entry.description, frozenset({t}))}
    cues = weights.keys() & _NEGATION_WORDS if in_question & in_entry else frozenset()
    return (words - (in_question ^ in_entry)) | cues


_NEGATION_WORDS = frozenset(terms("without not no never"))


def named_entry(entries: Sequence[OptionEntry], question: str) -> OptionEntry | None:
    """The first entry whose term lines hold an option ``question`` names as written ("-j" of "…
    dump several tables at once with -j"), ``None`` when it names none of them."""
    for option in _NAMED_OPTION.findall(question):
        written = re.compile(rf"(?<![\w-]){re.escape(option)}(?![\w-])")
        if entry := next((e for e in entries if written.search(e.terms)), None):
            return entry
    return None


def option_chunk(
    store: ChunkStore,
    question: str,
    weigh: Callable[[str], Mapping[str, float]],
    in_words: bool = True,
    where: ChunkFilter | None = None,
) -> Chunk | None:
    """The chunk holding the option entry of the program ``question`` names (an exact name or coined
    word titling a reference page: "initdb", "pg_dump"): the entry of an option it names as
    written (:func:`named_entry`: "-j"), else — when ``in_words`` (the question asks for an
    option or a command) — the entry that says most of it (:func:`best_option`, with ``weigh``'s
    term weights but the program's own); the entry's description is its ``matched_entry`` (its term
    lines ``matched_names``),
    ``entry_named`` says whether the question named it, and ``matched_term`` is the command of a
    group entry the question asks for (:func:`lettered_member`).
    ``None`` when no page with options is named or no entry is found."""
    named = dict.fromkeys([*exact_names(question), *coined_words(question)])
    asked = _NAMED_OPTION.search(question) or _OPTION_WORD.search(question)
    for program in (p for p in named if asked or asks_of(question, p)):
        if entries := option_entries(store.names.titled(program, where)):
            weights = {t: w for t, w in weigh(question).items() if t not in terms(program)}
            best = by_name = named_entry(entries, question)
            if best is None and in_words:
                best = best_option(question, entries, weights, store.embedding.embeddings)
            if best is None:
                return None
            matched = {
                "matched_entry": best.description,
                "matched_names": best.terms,
                "entry_named": by_name is not None,
            }
            if member := lettered_member(best, question):
                matched["matched_term"] = member
            return {**store.fetch([best.chunk_id])[best.chunk_id], **matched}
    return None


def with_option(
    store: ChunkStore,
    question: str,
    kind: str | None,
    found: list[Chunk],
    weigh: Callable[[str], Mapping[str, float]],
    where: ChunkFilter | None = None,
) -> list[Chunk] | None:
    """``found`` led by the chunk of the option ``question`` asks of a program (:func:`option_chunk`;
    asked in words only when its answer ``kind`` is a command or a default), which carries the entry
    as its ``matched_entry`` (the copy ``found`` holds too); ``None`` when there is none."""
    in_words = kind in ("command", "default")
    if (option := option_chunk(store, question, weigh, in_words, where)) is None:
        return None
    found = [{**option, **c} if c["chunk_id"] == option["chunk_id"] else c for c in found]
    return joined(found, [option], lead=True)
