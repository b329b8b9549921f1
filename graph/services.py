"""What the nodes need from the outside world, as a protocol: a retriever and the deciders."""

from __future__ import annotations

from typing import Protocol

from deciders.base import Deciders
from graph.config import RunContext
from store.chunks import Chunk


class GraphServices(Protocol):
    def search(self, query: str, k: int) -> list[Chunk]:
        """Hybrid retrieval: up to ``k`` chunks for ``query``, best first."""
        ...

    def rank_among(self, query: str, ids: list[str]) -> dict[str, float]:
        """Relevance of each chunk in ``ids`` to ``query``, ranked among ``ids`` only."""
        ...

    def deciders(self, context: RunContext) -> Deciders:
        """The deciders for this run's ``context.deciders`` mode."""
        ...

    def describe_source(self, chunk: Chunk) -> str:
        """Human-readable source of a chunk (path, or corpus name)."""
        ...
