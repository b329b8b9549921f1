"""Grading: which chunks of a hop are relevant to the question, and does the evidence kept so far
suffice to answer it?

* :class:`LexicalGrader` — judges a chunk by its retrieval score and its coverage of the
  question's terms (or, on a later hop, of the query or entity that found it).
* :class:`LLMGrader` — asks the model about each chunk (concurrently), then once about the
  evidence as a whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from core.text import coverage, normalise_query, term_set
from core.tuning import TUNING, Tuning
from deciders.chunks import HopChunk
from deciders.lexicon import MODEL_FREE
from deciders.llm import LLMDecider, ask_structured, format_evidence, provenance
from prompts import grader as prompts


@dataclass
class ChunkVerdict:
    chunk_id: str
    relevant: bool
    score: float
    """Relevance to the question, 0–1 (for LLM verdicts: 1.0 relevant, 0.0 not)."""


@dataclass
class Grading:
    verdicts: list[ChunkVerdict]
    sufficient: bool
    """Whether the kept evidence (including the relevant chunks of this hop) answers the question."""
    decider: str
    note: str | None = None


class Grader(Protocol):
    """Judges each chunk of a hop, and whether the evidence kept so far suffices. ``query`` is
    what the hop searched for (the question itself on the first hop, a bridge entity or rewrite
    later)."""

    def grade(self, question: str, query: str, chunks: Sequence[HopChunk], evidence: Sequence[HopChunk]) -> Grading: ...


class LexicalGrader:
    """Scores each chunk ``coverage_weight × match + (1 − coverage_weight) × retrieval``, where
    retrieval is the store's 0–1 score (1 = first place in both rankings), and match is the
    larger of

    * coverage: the fraction of the question's stemmed content terms found in the chunk (title
      included), and
    * chain: on a later hop, ``chain_weight`` × the fraction of the terms of the query that
      found the chunk found in the chunk, or for a graph hop, of the entity it followed
      (``via``) found in the chunk's title — the page about the bridge entity that earlier
      evidence named, or a passage naming it with the question's remaining words, is relevant
      to the question through that evidence, though it shares few of the question's words.

    A chunk is relevant when its score reaches ``min_relevance``. On the first hop the evidence
    suffices only when one relevant chunk holds every question term: a multi-hop question's
    first hop usually covers its terms across several chunks without naming the answer, so
    stopping on their union skips the bridge hop that multi-hop questions need, while a
    single-hop question's answer chunk usually holds every term anyway. After that, it
    suffices when the relevant evidence together covers at least ``sufficient_coverage`` of
    the terms.
    """

    def __init__(self, min_relevance: float = 0.4, tuning: Tuning = TUNING) -> None:
        self.min_relevance = min_relevance
        self.coverage_weight = tuning.coverage_weight
        self.chain_weight = tuning.chain_weight
        self.sufficient_coverage = tuning.sufficient_coverage

    def score(self, question_terms: frozenset[str], query_terms: frozenset[str], chunk: HopChunk) -> float:
        """Relevance of one chunk, 0–1 (``query_terms`` empty on the first hop)."""
        retrieval = chunk["score"]
        match = coverage(question_terms, f"{chunk['title']} {chunk['text']}")
        if chunk.get("via"):
            query_terms = term_set(chunk["via"])
        if query_terms:
            where = chunk["title"] if chunk.get("linked_from") else f"{chunk['title']} {chunk['text']}"
            match = max(match, self.chain_weight * coverage(query_terms, where))
        return round(self.coverage_weight * match + (1 - self.coverage_weight) * retrieval, 4)

    def grade(self, question: str, query: str, chunks: Sequence[HopChunk], evidence: Sequence[HopChunk]) -> Grading:
        q_terms = term_set(question)
        query_terms = frozenset() if normalise_query(query) == normalise_query(question) else term_set(query)
        verdicts = []
        for chunk in chunks:
            score = self.score(q_terms, query_terms, chunk)
            verdicts.append(ChunkVerdict(chunk["chunk_id"], score >= self.min_relevance, score))
        relevant = [c for c, v in zip(chunks, verdicts, strict=True) if v.relevant]
        if not query_terms:  # first hop: only a chunk that answers the whole question suffices
            best = max((coverage(q_terms, f"{c['title']} {c['text']}") for c in relevant), default=0.0)
            return Grading(verdicts, best >= 1.0, MODEL_FREE)
        relevant_text = " ".join(f"{c['title']} {c['text']}" for c in [*evidence, *relevant])
        covered = coverage(q_terms, relevant_text) if relevant_text else 0.0
        return Grading(verdicts, bool(relevant_text) and covered >= self.sufficient_coverage, MODEL_FREE)


class ChunkOut(BaseModel):
    """The LLM grader's reply about one chunk."""

    relevant: bool
    reason: str = ""


class SufficientOut(BaseModel):
    """The LLM grader's reply about the evidence as a whole."""

    sufficient: bool
    missing: str = ""


class LLMGrader(LLMDecider):
    """Grades the chunks of a hop concurrently (LangChain ``Runnable.batch``, at most
    ``llm_grade_concurrency`` at once), then asks once whether the evidence suffices. An
    unusable reply grades its chunk not relevant, or the evidence insufficient (with a note)."""

    def _grade_one(self, args: tuple[str, str, HopChunk]) -> tuple[ChunkOut | None, str | None]:
        question, query, chunk = args
        if chunk.get("via"):  # reached by a graph hop: say how
            query = f"a link to '{chunk['via']}', which earlier evidence mentions"
        user = prompts.CHUNK_USER.format(
            question=question, query=query, title=provenance(chunk), text=chunk["text"][: self.tuning.llm_passage_chars]
        )
        return ask_structured(self.model, ChunkOut, prompts.CHUNK_SYSTEM, user)

    def grade(self, question: str, query: str, chunks: Sequence[HopChunk], evidence: Sequence[HopChunk]) -> Grading:
        results = RunnableLambda(self._grade_one).batch(
            [(question, query, c) for c in chunks], config={"max_concurrency": self.tuning.llm_grade_concurrency}
        )
        notes = []
        verdicts = []
        for chunk, (out, note) in zip(chunks, results, strict=True):
            relevant = bool(out and out.relevant)
            verdicts.append(ChunkVerdict(chunk["chunk_id"], relevant, 1.0 if relevant else 0.0))
            if note:
                notes.append(f"{chunk['chunk_id'][:8]}: {note}; graded not relevant")
        kept = [*evidence, *(c for c, v in zip(chunks, verdicts, strict=True) if v.relevant)]
        sufficient = False
        if kept:
            user = prompts.SUFFICIENT_USER.format(
                question=question, evidence=format_evidence(kept, self.tuning.llm_passage_chars)
            )
            out, note = ask_structured(self.model, SufficientOut, prompts.SUFFICIENT_SYSTEM, user)
            sufficient = bool(out and out.sufficient)
            if note:
                notes.append(f"sufficiency: {note}; treated as insufficient")
        return Grading(verdicts, sufficient, self.name, "; ".join(notes) or None)
