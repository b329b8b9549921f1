"""What the nodes need from the outside world, as a protocol: a retriever, the deciders and the
tuning. :class:`agentic_rag.app.Services` implements it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from core.tuning import Tuning
from core.wording import Synonyms
from deciders import Deciders
from graph.context import RunContext
from store.chunks import Chunk
from store.filters import ChunkFilter
from store.mentions import Link


@dataclass(frozen=True)
class QuestionTerms:
    """What the collection says of a question's words (:meth:`GraphServices.question_terms`)."""

    weights: dict[str, float]
    """IDF (Lucene's, over the collection) of each content term (:func:`core.text.terms` keys);
    an identifier no chunk holds weighs the most a term can."""
    absent: list[str]
    """The question's identifiers (setting, product, function names) that no chunk contains."""
    rare_names: list[str]
    """Its code-like identifiers (``MySQL``) that only a few chunks hold."""
    synonyms: Synonyms = field(default_factory=dict)
    """Its terms the collection's glossary equates with others (:func:`core.wording.equivalents`)."""


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

    def question_terms(self, question: str, absent: list[str] | None = None) -> QuestionTerms:
        """The weights of ``question``'s terms, its identifiers no chunk contains (``absent``
        when already known) and its code-like names only a few chunks hold."""
        ...

    def searched_question(self, question: str) -> str:
        """``question`` as it is searched: its typos read as the collection spells the words
        ("shared_bufers" → ``shared_buffers``), only its last sentence when that asks of a name the
        collection holds, and the names it writes with spaces that the collection has an entry of
        written as that entry spells them ("autovacuum naptime" → ``autovacuum_naptime``)."""
        ...

    def deciders(self, context: RunContext) -> Deciders:
        """The deciders for this run's ``context.deciders`` mode."""
        ...

    def describe_source(self, chunk: Chunk) -> str:
        """Human-readable source of a chunk (path, or corpus name)."""
        ...
