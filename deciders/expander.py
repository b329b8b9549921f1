"""Query expansion: extra first-hop queries searched beside the question (LLM only).

* :class:`NoExpander` — without a model every strategy is skipped, and says so.
* :class:`LLMExpander` — multi-query, HyDE or step-back, written by the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from pydantic import BaseModel

from deciders.lexicon import MODEL_FREE
from deciders.llm import LLMDecider, brief
from prompts import expander as prompts

ExpansionKind = Literal["multi_query", "hyde", "step_back"]


@dataclass
class Expansion:
    queries: list[str]
    """Extra queries searched beside the question (empty: the strategy was skipped)."""
    reason: str
    decider: str
    note: str | None = None


class Expander(Protocol):
    """Writes extra first-hop queries: paraphrases (multi-query), a hypothetical answer passage
    (HyDE) or a broader question (step-back)."""

    def expand(self, question: str, kind: ExpansionKind) -> Expansion: ...


class NoExpander:
    """Query expansion needs a chat model: without one every strategy is skipped, and says so."""

    def expand(self, question: str, kind: ExpansionKind) -> Expansion:
        return Expansion([], f"{kind} needs a chat model; skipped (the question is searched alone)", MODEL_FREE)


MAX_QUERY_CHARS = 2000
"""A longer query (HyDE passages included) is dropped."""


class ExpandOut(BaseModel):
    """The LLM expander's reply."""

    queries: list[brief(MAX_QUERY_CHARS + 1)]  # longer: cut to one over the limit, then dropped


class LLMExpander(LLMDecider):
    """Multi-query expansion (3 phrasings, fused by reciprocal rank; as in RAG-Fusion), HyDE
    (Gao et al. 2022, "Precise Zero-Shot Dense Retrieval without Relevance Labels": search with
    a hypothetical answer passage) and step-back prompting (Zheng et al. 2023: search for the
    broader question too). An unusable reply skips the strategy, with a note."""

    SYSTEMS = {
        "multi_query": prompts.MULTI_QUERY,
        "hyde": prompts.HYDE,
        "step_back": prompts.STEP_BACK,
    }
    LIMITS = {"multi_query": 3, "hyde": 1, "step_back": 1}

    def expand(self, question: str, kind: ExpansionKind) -> Expansion:
        user = prompts.USER.format(question=question)
        out, note = self.ask(ExpandOut, self.SYSTEMS[kind], user, self.tuning.llm_answer_tokens)
        queries = [q.strip() for q in (out.queries if out else []) if q.strip() and len(q) <= MAX_QUERY_CHARS]
        queries = [q for q in dict.fromkeys(queries) if q != question][: self.LIMITS[kind]]
        if not queries:
            return Expansion([], f"{kind} skipped", self.name, note or "the model wrote no usable query")
        return Expansion(queries, f"{kind} by the model", self.name)
