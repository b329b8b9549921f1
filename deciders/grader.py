"""Grading: which chunks of a hop are relevant to the question, and does the evidence kept so far
suffice to answer it?

* :class:`LexicalGrader` — judges a chunk by its retrieval score and its coverage of the
  question's terms (or, on a later hop, of the query or entity that found it).
* :class:`LLMGrader` — asks the model once per hop which chunks are relevant and whether the
  evidence suffices (or once per chunk, then once about the evidence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

from langchain_core.runnables import RunnableLambda
from pydantic import BaseModel

from core.text import coverage, normalise_query, term_set
from core.tuning import TUNING, Tuning
from core.wording import asked_terms
from deciders.chunks import HopChunk
from deciders.lexicon import MODEL_FREE
from deciders.llm import DEFAULT_LIMITS, CallLimits, LLMDecider, format_evidence, provenance
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
        """Relevance of one chunk, 0–1 (``query_terms`` empty on the first hop); at least
        ``min_relevance`` for a chunk holding the entry the question names (``entry_named``: the
        option or function it asks about), which a table of many entries covers little of."""
        retrieval = chunk["score"]
        match = coverage(question_terms, f"{chunk['title']} {chunk['text']}")
        if chunk.get("via"):
            query_terms = term_set(chunk["via"])
        if query_terms:
            where = chunk["title"] if chunk.get("linked_from") else f"{chunk['title']} {chunk['text']}"
            match = max(match, self.chain_weight * coverage(query_terms, where))
        score = round(self.coverage_weight * match + (1 - self.coverage_weight) * retrieval, 4)
        return max(score, self.min_relevance) if chunk.get("entry_named") else score

    def grade(self, question: str, query: str, chunks: Sequence[HopChunk], evidence: Sequence[HopChunk]) -> Grading:
        q_terms = asked_terms(question)
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
    """The LLM grader's reply about one chunk (per-chunk grading)."""

    relevant: bool


class SufficientOut(BaseModel):
    """The LLM grader's reply about the evidence as a whole (per-chunk grading)."""

    sufficient: bool


class HopOut(BaseModel):
    """The LLM grader's reply about a whole hop (batch grading)."""

    relevant: list[int]
    """Numbers of the hop's passages that help answer the question."""
    sufficient: bool


KEPT_CHARS = 400
"""Characters of each kept evidence passage shown in a batch grading prompt (the new passages
are shown up to ``llm_passage_chars``)."""


class LLMGrader(LLMDecider):
    """Grades a hop with the model: by default in one call that lists the relevant passages and
    says whether the evidence suffices (``CallLimits.grading = "batch"``), or one call per chunk
    (``per_chunk``, ``CallLimits.concurrency`` at once, LangChain ``Runnable.batch``) and one
    for sufficiency. A failed or unusable batch reply grades the hop with :class:`LexicalGrader`
    (and says so), passage numbers out of range in it are ignored (and named in a note); an
    unusable per-chunk reply grades that chunk not relevant."""

    def __init__(self, model, tuning: Tuning = TUNING, limits: CallLimits = DEFAULT_LIMITS, min_relevance: float = 0.4):
        super().__init__(model, tuning, limits)
        self._fallback = LexicalGrader(min_relevance, tuning)

    def grade(self, question: str, query: str, chunks: Sequence[HopChunk], evidence: Sequence[HopChunk]) -> Grading:
        if self.limits.grading == "per_chunk":
            return self._grade_per_chunk(question, query, chunks, evidence)
        chars = self.tuning.llm_passage_chars
        user = prompts.HOP_USER.format(
            question=question,
            query=self._search_note(question, query),
            kept="\n".join(f"- {provenance(c)}: {c['text'][:KEPT_CHARS]}" for c in evidence) or "(none yet)",
            passages="\n\n".join(
                f"[{i}] {provenance(c)}{self._via(c)}\n{c['text'][:chars]}" for i, c in enumerate(chunks, 1)
            ),
        )
        out, note = self.ask(HopOut, prompts.HOP_SYSTEM, user, self.tuning.llm_decision_tokens)
        if out is None:
            grading = self._fallback.grade(question, query, chunks, evidence)
            grading.note = f"{note}; model-free grading instead"
            return grading
        chosen = {n for n in out.relevant if 1 <= n <= len(chunks)}  # a number naming no passage chooses nothing
        wild = sorted(set(out.relevant) - chosen)
        note = f"passage number(s) {wild} out of range 1–{len(chunks)} ignored" if wild else None
        verdicts = [ChunkVerdict(c["chunk_id"], i in chosen, float(i in chosen)) for i, c in enumerate(chunks, 1)]
        sufficient = out.sufficient and (bool(evidence) or bool(chosen))
        return Grading(verdicts, sufficient, self.name, note)

    @staticmethod
    def _via(chunk: HopChunk) -> str:
        return (
            f"; reached through a link to '{chunk['via']}', which the kept evidence mentions"
            if chunk.get("via")
            else ""
        )

    @staticmethod
    def _search_note(question: str, query: str) -> str:
        return "" if normalise_query(query) == normalise_query(question) else prompts.SEARCH_NOTE.format(query=query)

    def _grade_one(self, args: tuple[str, str, HopChunk]) -> tuple[ChunkOut | None, str | None]:
        question, query, chunk = args
        if chunk.get("via"):  # reached by a graph hop: say how
            query = f"a link to '{chunk['via']}', which earlier evidence mentions"
        user = prompts.CHUNK_USER.format(
            question=question, query=query, title=provenance(chunk), text=chunk["text"][: self.tuning.llm_passage_chars]
        )
        return self.ask(ChunkOut, prompts.CHUNK_SYSTEM, user)

    def _grade_per_chunk(
        self, question: str, query: str, chunks: Sequence[HopChunk], evidence: Sequence[HopChunk]
    ) -> Grading:
        results = RunnableLambda(self._grade_one).batch(
            [(question, query, c) for c in chunks], config={"max_concurrency": self.limits.concurrency}
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
            out, note = self.ask(SufficientOut, prompts.SUFFICIENT_SYSTEM, user)
            sufficient = bool(out and out.sufficient)
            if note:
                notes.append(f"sufficiency: {note}; treated as insufficient")
        return Grading(verdicts, sufficient, self.name, "; ".join(notes) or None)
