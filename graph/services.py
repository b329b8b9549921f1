"""What the nodes need from the outside world, as a protocol: a retriever and the deciders."""

from __future__ import annotations

from typing import Protocol

from deciders.base import Deciders
from graph.config import RunContext
from store.chunks import Chunk
from store.filters import ChunkFilter
from store.mentions import Link


class GraphServices(Protocol):
    def search(self, query: str, k: int, where: ChunkFilter | None = None) -> list[Chunk]:
        """Hybrid retrieval: up to ``k`` chunks for ``query`` that ``where`` allows, best first."""
        ...

    def chunk_filter(self, context: RunContext) -> ChunkFilter:
        """The run's filter: its ``sources`` (else the collection default) and ``filters``."""
        ...

    def rank_among(self, query: str, ids: list[str]) -> dict[str, float]:
        """Relevance of each chunk in ``ids`` to ``query``, ranked among ``ids`` only."""
        ...

    def links_from(self, chunk_ids: list[str], exclude: list[str], where: ChunkFilter | None = None) -> list[Link]:
        """Mention links out of ``chunk_ids`` to chunks not in ``exclude`` that ``where``
        allows (see :mod:`store.mentions`)."""
        ...

    def fetch(self, ids: list[str]) -> dict[str, Chunk]:
        """The chunks with these ids (score 0, no ranks), by id; missing ids are absent."""
        ...

    def deciders(self, context: RunContext) -> Deciders:
        """The deciders for this run's ``context.deciders`` mode."""
        ...

    def describe_source(self, chunk: Chunk) -> str:
        """Human-readable source of a chunk (path, or corpus name)."""
        ...
