"""Which evidence sentence answers the question, and how well: the candidate ranking of the
model-free generator.

Each evidence sentence is scored by the IDF-weighted share of the question's terms it holds
(its *lexical support*; terms found only near it — the chunk's title, the few sentences before
it — count for less the farther they are, a proximity weighting in the spirit of passage-
retrieval density scoring, Tellex et al. 2003), blended with the cosine similarity of its
embedding to the question's (when an embedding model is given: paraphrased questions share
few words with their answer), plus a bonus when it holds a span of the expected answer type
(:mod:`deciders.answer_types`), plus a little for the grader's relevance of its chunk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from core.text import NAME_LINE, SEE, api_entry_name, cross_reference, is_heading, sentences, term_set, unbracketed
from core.tuning import Tuning
from core.wording import Synonyms, equated, phrase_run, said_terms
from deciders.answer_types import UNTYPED, AnswerType, definition_subject, subject_weights
from deciders.chunks import HopChunk
from deciders.definitions import defines, opens_on
from deciders.lexicon import (
    ABOUT_VERSIONS,
    API_NOUNS,
    CHANGELOG_TITLE,
    COMMAND_PHRASE,
    MODULE_TITLE,
    PROSE_STATEMENT,
    SQL_STATEMENT,
    SYNTAX_LINE,
    WHICH_NOUN,
    measured_subject,
    prose_statements,
)
from deciders.spans import spans

TITLE_WEIGHT = 0.6
"""How much a question term counts when only the chunk's title holds it."""
NEAR_WEIGHTS = (0.9, 0.6, 0.4)
"""How much a question term counts when only the sentence 1, 2, 3 places before holds it (a
"The default is three." names its setting in the sentence before)."""
HEAD_WEIGHT = 0.9
"""How much a question term counts when only the heading-like line the sentence falls under, or
that entry's first (defining) sentence, holds it (a definition list's term and its definition:
"maintenance_work_mem (integer)" "Specifies the … memory … maintenance operations …" … "It
defaults to 64 megabytes."); an exact name heading its own entry ("work_mem (integer)") counts in
full for every sentence of the entry."""
IN_ENTRY = 0.6
"""Factor on the credit from the sentences before when the sentence falls under a heading: a
term the entry's heading lacks is only mentioned in passing ("… at least max_connections minus
superuser_reserved_connections …" under "superuser_reserved_connections (integer)"); the same
factor on an exact name (``work_mem``) the sentence holds when it falls under an entry named by
another one ("hash_mem_multiplier (floating point)": "… twice the usual work_mem …")."""
SETTING_LINE = re.compile(r"^[\s*•-]*([A-Za-z_][\w.]*) \([a-z ]+\)$")
"""A setting's term line, its name and its type in brackets ("DateStyle (string)", "work_mem (integer)")."""
VERSION_NOTE = re.compile(r"(?:changed|new) in version\b|deprecated since version\b", re.I)
"""A sentence telling what a release changed ("Changed in version 3.4: Use … as default if indent is not None")."""
CONTEXT_SHARE = 0.25
"""Least share of the question's weight a sentence before must supply to be shown with the answer sentence."""


@dataclass(frozen=True)
class Candidate:
    """An evidence sentence as a possible answer."""

    sentence: str
    chunk: HopChunk
    context: str | None
    """The heading the sentence falls under — when it names a setting or function the sentence does not, or
    supplies ``CONTEXT_SHARE`` of the question's weight — else the sentence before that does: shown before it."""
    support: float
    """IDF-weighted share (0–1) of the question's terms in the sentence or near it."""
    credits: dict[str, float]
    """Each question term's share (0–1): 1 in the sentence, less when only near it."""
    similarity: float | None
    """Cosine similarity (0–1) of the sentence's embedding to the question's; ``None`` without a model."""
    spans: tuple[str, ...]
    """Spans of the expected answer type in the sentence (empty for ``other``)."""
    score: float
    """The blended support + the type bonus + the relevance bonus − the evidence-order penalty."""


def joint_support(credits: Sequence[Mapping[str, float]], weights: Mapping[str, float]) -> float:
    """IDF-weighted share (0–1) of the question's terms that sentences with these ``credits``
    hold together: each term counts its best share among them."""
    total = sum(weights.values()) or 1.0
    return round(sum(w * max((c.get(t, 0.0) for c in credits), default=0.0) for t, w in weights.items()) / total, 4)


def blended_support(chosen: Sequence[Candidate], weights: Mapping[str, float], tuning: Tuning) -> float:
    """Support (0–1) of an answer made of the ``chosen`` sentences: their joint lexical support
    blended with their best embedding similarity (``tuning.dense_share`` of it)."""
    if not chosen:
        return 0.0
    lexical = joint_support([c.credits for c in chosen], weights)
    similarities = [c.similarity for c in chosen if c.similarity is not None]
    return blend(lexical, max(similarities), tuning) if similarities else lexical


def blend(lexical: float, similarity: float, tuning: Tuning) -> float:
    """``(1 − dense_share) × lexical + dense_share × similarity``, rounded to 4 places."""
    return round((1 - tuning.dense_share) * lexical + tuning.dense_share * similarity, 4)


def answer_sentences(chunk: HopChunk, avoid: Sequence[str] = ()) -> list[str]:
    """Sentences of a chunk an extractive answer may use: not one that only repeats the chunk's
    title (a heading line), and none in ``avoid``."""
    title_terms = term_set(chunk["title"])
    return [s for s in sentences(chunk["text"]) if s not in avoid and not term_set(s) <= title_terms]


def rank_candidates(
    question: str,
    kind: AnswerType,
    evidence: Sequence[HopChunk],
    weights: Mapping[str, float],
    tuning: Tuning,
    avoid: Sequence[str] = (),
    embeddings: Embeddings | None = None,
    synonyms: Synonyms | None = None,
) -> list[Candidate]:
    """Every usable evidence sentence as a :class:`Candidate`, best first.

    Args:
        question: the (standalone) question.
        kind: its expected answer type.
        evidence: the chunks, best first (a later chunk loses ``tuning.order_penalty`` per place).
        weights: the question's terms with their weights (:func:`core.wording.focus_weights`).
        tuning: ``dense_share``, ``type_bonus``, ``relevance_bonus``, ``order_penalty``,
            ``definition_bonus``, ``matched_entry_bonus``, ``changelog_penalty``, ``command_bonus``.
        avoid: sentences not to use (claims a grounding check rejected).
        embeddings: the collection's embedding model (LangChain ``Embeddings``), for the
            sentence–question similarity; ``None`` ranks on words alone.
        synonyms: question terms a sentence also says by an equivalent (:func:`core.wording.equated`).
    """
    found: dict[str, dict] = {}
    weights = subject_weights(question, kind, weights)
    total = sum(weights.values())
    noun = (found_noun := WHICH_NOUN.search(question)) and found_noun[1].lower()
    asks_api = noun in API_NOUNS  # "which exception …?"
    versions, yes_no = bool(ABOUT_VERSIONS.search(question)), kind == "yes_no"
    commands = _command_prefixes(question)
    # what a definition asks about, or the thing whose value is asked ("what port …?": the entry "port (integer)")
    subject = definition_subject(question) if kind == "definition" else None
    if kind in ("number", "quantity"):  # or what "how many bytes …?" measures: the row "| bigint | 8 bytes |"
        subject = noun or measured_subject(question)
    # a term its entry refers to is the subject too: "WAL" — "See Write-ahead log."
    referred = (cross_reference(c["text"], subject) for c in evidence) if subject else ()
    subjects = [s for s in dict.fromkeys([subject, *referred]) if s]
    referred_lower = {s.lower() for s in subjects[1:]}
    # exact names, and the question's words that name a setting's entry in the evidence ("datestyle")
    named = {t for c in evidence for s in sentences(c["text"]) if (m := SETTING_LINE.match(s)) for t in term_set(m[1])}
    for rank, chunk in enumerate(evidence):
        title_terms = term_set(chunk["title"])
        module = (found_module := MODULE_TITLE.match(chunk["title"])) and found_module["name"]
        usable = set(answer_sentences(chunk, avoid))
        before: list[tuple[str, frozenset[str]]] = []
        head: tuple[str, frozenset[str], frozenset[str]] | None = None  # the entry the sentence belongs to
        mid_entry = False  # the head is the term line put before a chunk continuing its entry
        head_entry: str | None = None  # the name the head defines when it is an API signature line
        about: frozenset[str] = frozenset()  # the subject's terms, under the entry its entry refers to
        header: frozenset[str] = frozenset()  # a table's header row ("| Item | Upper Limit |"), for its rows
        for sentence in sentences(chunk["text"]):
            own = equated(said_terms(sentence, question), synonyms or {})
            line_entry = api_entry_name(sentence)
            if line_entry:  # a new API entry: what came before is about another
                head, head_entry, about, before = None, None, frozenset(), []
            if before and before[-1][0].startswith("|") != sentence.startswith("|"):
                before = []  # a table's rows and the prose around it are not one passage: no proximity credit across
                header = own if sentence.startswith("|") else frozenset()  # its first row names its columns
            # an API entry's signature line names the thing; its sentences say what it does (a default is in it)
            if (
                sentence in usable
                and (kind == "default" or not line_entry)
                and (kind == "command" or not SYNTAX_LINE.search(sentence))
                # a term line names what a definition is about; "TRUNCATE — empty a table" says it
                and not (kind == "definition" and is_heading(sentence) and not NAME_LINE.match(sentence))
                and not (kind == "definition" and SEE.match(sentence))  # says where the definition is
            ):
                credits, from_head, from_previous = {}, 0.0, 0.0
                # a term line starts an entry: it takes no credit from the entry, or the sentences, before it
                under, near_by = (None, []) if SETTING_LINE.match(sentence) else (head, before)
                # an entry named by another exact name ("hash_mem_multiplier (floating point)", "IntervalStyle
                # (string)") mentions an exact name of the question ("work_mem", "DateStyle") only in passing
                named_entry = under is not None and (
                    any("_" in h for h in under[1]) or bool(SETTING_LINE.match(under[0]))
                )
                api_terms = term_set(head_entry or "")
                for term, weight in weights.items():
                    in_head = under is not None and (term in under[1] or term in under[2])
                    scale = IN_ENTRY if under is not None else 1.0  # an entry is about its heading
                    name = "_" in term or term in named
                    passing = named_entry and name and term not in under[1]
                    # an entry's own name counts in full for its defining sentence ("Return a casefolded copy")
                    own_name = (
                        (named_entry and name and term in under[1])
                        or (term in api_terms and not (under and under[2]))
                        or term in about
                    )
                    head_weight = 1.0 if own_name else HEAD_WEIGHT
                    near = [
                        scale * w for w, (_, prev) in zip(NEAR_WEIGHTS, reversed(near_by), strict=False) if term in prev
                    ] + [HEAD_WEIGHT * (term in header)]  # a row's column names
                    credits[term] = (
                        (IN_ENTRY if passing else 1.0)
                        if term in own
                        else max([TITLE_WEIGHT * (term in title_terms), head_weight * in_head, *near])
                    )
                    from_head += weight * (term not in own and in_head)
                    from_previous += weight * (term not in own and bool(near_by) and term in near_by[-1][1])
                # the entry of the option it names answers what it does, read with its term line: "What does \\x do?"
                entry = kind == "definition" and chunk.get("entry_named") and sentence in chunk.get("matched_entry", "")
                credits = dict.fromkeys(weights, 1.0) if entry else credits
                # the context that supplies question terms is read with the sentence (its
                # similarity window); a setting's or a lock mode's entry heading is shown even when it supplies none
                supplying = None
                if head is not None and head[0] != sentence and (entry or from_head >= CONTEXT_SHARE * total):
                    supplying = head[0]
                elif before and from_previous >= CONTEXT_SHARE * total:
                    supplying = before[-1][0]
                names_entry = (
                    head is not None
                    and head[0] != sentence
                    and ("_" in head[0] or head_entry is not None or kind == "lock" or head[0].isupper())
                    and not head[1] <= own
                )
                context = supplying or (head[0] if names_entry else None)
                if chunk.get("entry_named") and sentence in chunk.get("matched_entry", ""):  # it says what it matched:
                    credits.update(dict.fromkeys(chunk.get("matched_terms", frozenset()) & weights.keys(), 1.0))
                    context = context or chunk.get("matched_names")  # "concat: NULL arguments are ignored."
                typed = tuple(spans(sentence, kind, question)) if kind not in UNTYPED else ()
                defining = head is not None and head[0] != sentence and not head[2]
                if defining and not typed and (kind == "command" or asks_api):
                    # an entry's defining sentence is about the entry's name ("os.remove(path)": "Remove (delete)
                    # the file path."); later ones may be about another ("Use rmdir() to remove directories.")
                    command = tuple(spans(head[0], kind, question)) if kind == "command" else ()
                    typed = (head_entry,) if head_entry else command
                if kind == "command" and head is not None and sentence in chunk.get("matched_entry", ""):
                    # the entry matched to the question names the answer: "\password", not the ALTER ROLE it sends
                    typed = tuple(dict.fromkeys([*spans(head[0], kind, question), *typed]))
                if noun == "module" and module and not typed:  # "which module …?": the page's module (heapq)
                    typed = (module,)
                if chunk.get("matched_limit") and sentence in chunk["matched_entry"]:
                    typed = (chunk["matched_limit"],)  # the limits row asked: "| indexes per table | unlimited |'
                if kind == "lock" and not typed and head is not None:  # "… acquires a lock of this mode" in its entry
                    typed = tuple(spans(head[0], kind, question))
                seen = found.get(sentence)  # overlapping chunks repeat sentences: keep the best supported
                if seen is None or joint_support([credits], weights) > joint_support([seen["credits"]], weights):
                    found[sentence] = {
                        "chunk": chunk,
                        "rank": rank,
                        "credits": credits,
                        "spans": typed,
                        "context": context,
                        "window": f"{supplying or ''} {sentence}".strip(),
                        "defines": (
                            strong := any(
                                defines(sentence, head[0] if defining and not mid_entry else None, s) for s in subjects
                            )
                        ),
                        # else an entry's first sentence, or one opening on the subject ("VACUUM FULL can reclaim
                        # more disk space", not "… to avoid needing VACUUM FULL")
                        "defining": defining or (not strong and any(opens_on(sentence, s) for s in subjects)),
                    }
            if (line_entry or is_heading(sentence)) and not sentence.endswith("|"):  # a table row's tail heads nothing
                # the entry of a term the subject refers to is about the subject ("Write-ahead log" about "WAL")
                about = term_set(subjects[0]) if unbracketed(sentence).lower() in referred_lower else frozenset()
                # a chunk continuing an entry (its term line put first) opens mid-entry: no definition
                mid_entry = bool(chunk.get("continues")) and not before
                head, head_entry = (sentence, own | about, frozenset()), line_entry
            elif head is not None and not head[2] and sentence != head[0]:
                head = (head[0], head[1], own)  # the entry's defining sentence counts as its heading
            before = [*before, (sentence, own)][-len(NEAR_WEIGHTS) :]
    # the statement a how-to's verb means, the first of its readings the evidence holds ("How do I delete a
    # database?": DROP DATABASE, not DELETE FROM); else any command made of the question's words
    held = {span for item in found.values() for span in item["spans"]}
    statement = next((r for r in prose_statements(question) if r in held), None) if kind == "command" else None
    verb = term_set(PROSE_STATEMENT.search(question)["verb"]) & weights.keys() if statement else set()
    for item in (item for item in found.values() if statement in item["spans"]):  # "delete" said by DROP
        item["credits"].update(dict.fromkeys(verb, 1.0))  # in "DROP USER — remove a database role"
    windows = [item["window"] for item in found.values()]
    similarities = _similarities(question, windows, embeddings)
    ranked = []
    for (sentence, item), similarity in zip(found.items(), similarities, strict=True):
        lexical = joint_support([item["credits"]], weights)
        support = lexical if similarity is None else blend(lexical, similarity, tuning)
        score = (
            support
            + tuning.type_bonus * (kind in UNTYPED or bool(item["spans"]))
            + tuning.relevance_bonus * item["chunk"].get("relevance", item["chunk"].get("score", 0.0))
            - tuning.order_penalty * item["rank"]
            + tuning.definition_bonus * (kind == "definition" and item["defining"])
            + tuning.subject_bonus * item["defines"]
            + tuning.subject_bonus * item["defines"] * _titled_by(item["chunk"], subjects)
            + tuning.matched_entry_bonus * (sentence in item["chunk"].get("matched_entry", ""))  # the option asked
            - tuning.changelog_penalty
            * (not versions and bool(CHANGELOG_TITLE.search(item["chunk"]["title"]) or VERSION_NOTE.match(sentence)))
            - tuning.aside_penalty * (sentence.startswith("(") and sentence.rstrip(".").endswith(")"))
            + (tuning.phrase_bonus * min(max(phrase_run(question, weights, sentence) - 2, 0), 3) / 3 if yes_no else 0)
            + tuning.command_bonus * any(c in f"{item['chunk']['title']} {item['window']}" for c in commands)
            + tuning.command_bonus
            * (
                kind == "command"
                and any(s == statement if statement else _asked_command(s, question) for s in item["spans"])
            )
        )
        fields = (item["chunk"], item["context"], support, item["credits"], similarity, item["spans"])
        ranked.append(Candidate(sentence, *fields, round(score, 4)))
    return sorted(ranked, key=lambda c: -c.score)


_SECTION_NUMBER = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\.\s+")
"""A section title's number: "73.2. " of "73.2. TOAST"."""


def _titled_by(chunk: HopChunk, subjects: Sequence[str]) -> bool:
    """Whether ``chunk``'s page is about one of ``subjects``: its title, without a section number,
    is the subject in any case ("ANALYZE", "73.2. TOAST") — a definition's own page, not an entry of
    that name on another one (EXPLAIN's option ANALYZE)."""
    title = _SECTION_NUMBER.sub("", chunk["title"]).strip().lower()
    return any(title == s.lower() for s in subjects)


def _command_prefixes(question: str) -> list[str]:
    """The commands ``question`` writes in capitals and their first two or more words:
    "ALTER SYSTEM SET" → "ALTER SYSTEM SET", "ALTER SYSTEM"."""
    return [" ".join(w[:n]) for w in map(str.split, COMMAND_PHRASE.findall(question)) for n in range(len(w), 1, -1)]


def _asked_command(span: str, question: str) -> bool:
    """Whether ``span`` is an SQL statement's command made of the words a how-to asks in prose:
    "CREATE INDEX" for "How do I create an index?" (not "WITH PASSWORD" for "… my password")."""
    asked = term_set(span) <= term_set(question)
    return bool(COMMAND_PHRASE.fullmatch(span)) and span.split()[0] in SQL_STATEMENT and asked


def _similarities(question: str, texts: list[str], embeddings: Embeddings | None) -> list[float | None]:
    """Cosine similarity (clipped to 0–1) of each text's embedding to the question's; ``None``
    each without a model."""
    if embeddings is None or not texts:
        return [None] * len(texts)
    vectors = np.asarray(embeddings.embed_documents([question, *texts]), dtype=float)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    return [round(float(max(v, 0.0)), 4) for v in vectors[1:] @ vectors[0]]
