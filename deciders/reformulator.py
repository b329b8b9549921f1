"""Reformulation: the next hop's query (or queries), from what has been tried and found.

* :class:`FeedbackReformulator` — pseudo-relevance feedback (Rocchio 1971; Xu & Croft 1996): the
  next query is an entity that the best evidence names and the question does not (the bridge
  entity of a multi-hop question), taken from the evidence sentences that best match the
  question.
* :class:`LLMReformulator` — the model writes the next query; an unusable reply keeps the last.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, Sequence

from core.text import coverage, names, normalise_query, sentences, strip_qualifier, term_set
from core.tuning import TUNING, Tuning
from deciders.chunks import HopChunk
from deciders.lexicon import FURNITURE, MODEL_FREE, MONTHS, NO_SHORT_ANSWER, QUESTION_WORD
from deciders.llm import LLMDecider, format_evidence
from prompts import reformulator as prompts


@dataclass
class Reformulation:
    query: str
    reason: str
    decider: str
    note: str | None = None
    queries: list[str] = field(default_factory=list)
    """Every query of the next hop, each searched on its own (e.g. one per bridge entity);
    empty means ``[query]``."""


class Reformulator(Protocol):
    """Writes the next query from what has been tried and found."""

    def reformulate(
        self, question: str, tried: Sequence[str], evidence: Sequence[HopChunk], last_chunks: Sequence[HopChunk]
    ) -> Reformulation: ...


def uncovered_words(question: str, text: str) -> str:
    """The question's content words whose terms ``text`` lacks, in question order."""
    covered = term_set(text)
    return " ".join(w for w in QUESTION_WORD.findall(question) if term_set(w) and not term_set(w) <= covered)


class FeedbackReformulator:
    """Next hop = the names that the best relevant evidence chunk mentions and the question lacks
    (its bridge entities), best first (by how well their sentence matches the question), each
    searched with the question's words that chunk lacks (the relation still to resolve: "the
    *seat* of the county where X is" → "Mountrail County seat": the bridge substitution of
    DecompRC, Min et al. 2019, made without a model); at most ``bridge_queries`` of them; the
    next chunk's names once those were tried. When no new name is left, the question's terms
    that no evidence covers are tried; when that was tried too (or is the question itself, as
    when nothing relevant was found), the original question is returned and the graph stops on
    a repeated query."""

    def __init__(self, tuning: Tuning = TUNING) -> None:
        self.max_queries = tuning.bridge_queries

    def candidates(self, question: str, chunk: HopChunk, known_titles: frozenset[str] = frozenset()) -> list[str]:
        """Names in ``chunk`` that the question lacks, best first.

        A name scores the question-term coverage of the sentence it appears in, plus a bonus
        when it shares a term with the question (it names the kind of thing asked about, e.g.
        "Major League Soccer" for "what league") and when it has several words, less when it
        names the chunk's own subject (shares a term with its title). Names of chunks already
        in hand (``known_titles``, lower case), dates and a document's furniture ("Section 13",
        "Chapter 26") are skipped; a cross-reference's "See" is no part of the name it opens.
        """
        q_terms = term_set(question)
        q_lower = question.lower()
        title_terms = term_set(chunk["title"])
        scored: dict[str, tuple[float, int]] = {}
        for unit in [chunk["title"], *sentences(chunk["text"])]:
            match = coverage(q_terms, unit)
            for name in (n.removeprefix("See ") for n in names(unit)):
                name_terms = term_set(name)
                if (
                    not name_terms - q_terms
                    or name.lower() in q_lower
                    or name.lower() in known_titles
                    or name.split()[0].lower() in MONTHS
                    or FURNITURE.match(name)
                ):
                    continue
                score = (
                    match
                    + (0.3 if name_terms & q_terms else 0.0)
                    + (0.2 if " " in name else 0.0)
                    - (0.3 if name_terms & title_terms else 0.0)
                )
                if name not in scored or score > scored[name][0]:
                    scored[name] = (score, len(scored))
        return [name for name, _ in sorted(scored.items(), key=lambda item: (-item[1][0], item[1][1]))]

    def reformulate(
        self, question: str, tried: Sequence[str], evidence: Sequence[HopChunk], last_chunks: Sequence[HopChunk]
    ) -> Reformulation:
        tried_norm = {normalise_query(q) for q in tried}
        # Feedback comes from relevant evidence only (names in chunks judged irrelevant are noise),
        # best chunk first; a name that is already the title of a chunk in hand needs no search.
        in_hand = [c["title"] for c in [*evidence, *last_chunks]]
        known = frozenset(t.lower() for t in [*in_hand, *map(strip_qualifier, in_hand)])
        for chunk in evidence:
            rest = uncovered_words(question, f"{chunk['title']} {chunk['text']}")
            fresh = [
                f"{name} {rest}".strip()
                for name in self.candidates(question, chunk, known)
                if normalise_query(f"{name} {rest}") not in tried_norm
            ]
            fresh = fresh[: self.max_queries]
            if fresh:
                reason = f"bridge entities named in chunk {chunk['chunk_id'][:8]} ({chunk['title']})"
                return Reformulation(fresh[0], reason, MODEL_FREE, queries=fresh)
        words = uncovered_words(question, " ".join(f"{c['title']} {c['text']}" for c in evidence))
        if words and normalise_query(words) not in tried_norm:
            return Reformulation(words, "question terms no evidence covers", MODEL_FREE)
        return Reformulation(question, "no new name or term left to search", MODEL_FREE)


MAX_QUERY_CHARS = 500
"""A longer reply is not a query: the last query is kept."""


class LLMReformulator(LLMDecider):
    """Asks the model for the next query (plain text, its first line); a failed call, an empty,
    ``null``-like or overlong reply gives :class:`FeedbackReformulator`'s query (and says why)."""

    fallback = FeedbackReformulator

    def reformulate(
        self, question: str, tried: Sequence[str], evidence: Sequence[HopChunk], last_chunks: Sequence[HopChunk]
    ) -> Reformulation:
        user = prompts.USER.format(
            question=question,
            tried="\n".join(f"- {q}" for q in tried) or "(none)",
            evidence=format_evidence(list(evidence) or list(last_chunks), self.tuning.llm_passage_chars),
        )
        reply, note = self.ask_text(prompts.SYSTEM, user, self.tuning.llm_decision_tokens)
        lines = [line.strip().strip("\"'`").strip() for line in (reply or "").strip().splitlines() if line.strip()]
        query = lines[0] if lines else ""
        if not query or len(query) > MAX_QUERY_CHARS or query.lower().strip(" .") in NO_SHORT_ANSWER:
            fallback = self._fallback.reformulate(question, tried, evidence, last_chunks)
            fallback.note = f"{note or 'empty, null or overlong reply'}; model-free query instead"
            return fallback
        return Reformulation(query, "rewritten by the model", self.name)
