"""What the nodes need from the outside world, as a protocol: a retriever, the deciders and the
tuning. :class:`agentic_rag.app.Services` implements it."""

from __future__ import annotations

from typing import Protocol

from core.tuning import Tuning
from deciders import Deciders
from graph.context import RunContext
from store.chunks import Chunk
from store.filters import ChunkFilter
from store.mentions import Link


class GraphServices(Protocol):
    tuning: Tuning
    """The tuned constants the nodes use."""

    def search(self, query: str, k: int, where: ChunkFilter | None = None) -> list[Chunk]:
        """Hybrid retrieval: up to ``k`` chunks for ``query`` that ``where`` allows, best first."""
        ...

    def chunk_filter(self, context: RunContext) -> ChunkFilter:
        """The run's filter: its ``sources`` (else the collection default) and ``filters``."""
        ...

    def rank_among(self, query: str, ids: list[str]) -> dict[str, float]:
        """Relevance (0–1) of each chunk in ``ids`` to ``query``, ranked among ``ids`` only."""
        ...

    def links_from(self, chunk_ids: list[str], exclude: list[str], where: ChunkFilter | None = None) -> list[Link]:
        """Mention links out of ``chunk_ids`` to chunks not in ``exclude`` that ``where``
        allows (see :mod:`store.mentions`)."""
        ...

    def fetch(self, ids: list[str]) -> dict[str, Chunk]:
        """The chunks with these ids (score 0, no ranks), by id; missing ids are absent."""
        ...

    def absent_terms(self, question: str) -> list[str]:
        """The question's identifiers (setting, product, function names) that no chunk contains."""
        ...

    def rare_names(self, question: str, absent: list[str]) -> list[str]:
        """The question's code-like names (``MySQL``) that only a few chunks hold (not ``absent``)."""
        ...

    def term_weights(self, question: str, absent: list[str] | None = None) -> tuple[dict[str, float], list[str]]:
        """IDF weight (Lucene's idf over the collection) of each content term of ``question``,
        and the question's identifiers that no chunk contains (weighted highest; ``absent``
        when already known)."""
        ...

    def deciders(self, context: RunContext) -> Deciders:
        """The deciders for this run's ``context.deciders`` mode."""
        ...

    def describe_source(self, chunk: Chunk) -> str:
        """Human-readable source of a chunk (path, or corpus name)."""
        ...
