"""What the deciders see of a chunk: a retrieved chunk plus what the hop that found it knows."""

from __future__ import annotations

from typing import NotRequired

from store.chunks import Chunk


class HopChunk(Chunk):
    """A retrieved chunk as a hop hands it on (plain JSON-serialisable values)."""

    hop: NotRequired[int]
    """The hop that first found the chunk (1 = the question itself)."""
    rank: NotRequired[int]
    """Its position in that hop's results (0 = first)."""
    via: NotRequired[str]
    """For chunks found by later hops: the query that found the chunk, or for a graph hop the
    entity whose mention led to it."""
    linked_from: NotRequired[str]
    """For chunks reached by a graph hop: the chunk that mentions ``via``."""
    sub_question: NotRequired[int]
    """For decomposed questions: the index of the sub-question whose search found it."""
    relevance: NotRequired[float]
    """The grader's relevance to the question (0–1); set once the chunk has been graded."""
