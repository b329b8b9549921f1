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

    def deciders(self, context: RunContext) -> Deciders:
        """The deciders for this run's ``context.deciders`` mode."""
        ...

    def describe_source(self, chunk: Chunk) -> str:
        """Human-readable source of a chunk (path, or corpus name)."""
        ...
