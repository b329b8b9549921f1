"""Rank fusion, the one implementation every ranking merge uses.

* :func:`weighted_rrf` — weighted reciprocal rank fusion (Cormack, Clarke & Büttcher 2009,
  "Reciprocal Rank Fusion outperforms Condorcet and individual Rank Learning Methods"): each item
  scores ``Σ weight / (RRF_K + rank)`` over the rankings it appears in.
* :func:`normalised` — that score scaled to 0–1, 1 being first place in every ranking.
* :func:`round_robin` — interleave rankings by depth (every ranking's first, then every
  second, …), the first occurrence of an item winning.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Callable, Hashable, Iterable, Sequence, TypeVar

RRF_K = 60
"""Reciprocal-rank-fusion constant from Cormack et al. (2009)."""

Item = TypeVar("Item")


def weighted_rrf(rankings: Iterable[tuple[Sequence[str], float]]) -> dict[str, float]:
    """Fused scores of ids over weighted rankings.

    Args:
        rankings: (ids best first, weight) pairs; an id may be missing from some rankings.

    Returns:
        id → ``Σ weight / (RRF_K + rank)`` (rank from 1), in first-seen order.
    """
    fused: dict[str, float] = {}
    for ids, weight in rankings:
        for rank, item in enumerate(ids, 1):
            fused[item] = fused.get(item, 0.0) + weight / (RRF_K + rank)
    return fused


def normalised(score: float, weights: Sequence[float]) -> float:
    """A fused score as a 0–1 relevance: divided by the best score possible with ``weights``
    (first place in every ranking), capped at 1."""
    return min(1.0, score / (sum(weights) / (RRF_K + 1)))


def by_score(scores: dict[str, float]) -> list[str]:
    """Ids best first; ties broken by id so that the order is deterministic."""
    return sorted(scores, key=lambda item: (-scores[item], item))


def round_robin(
    rankings: Sequence[Sequence[Item]], key: Callable[[Item], Hashable], depth: int | None = None
) -> list[Item]:
    """Interleave rankings: the first item of each, then the second of each, …, down to
    ``depth`` (all when ``None``); an item already taken (same ``key``) is skipped."""
    depth = max((len(r) for r in rankings), default=0) if depth is None else depth
    merged: dict[Hashable, Item] = {}
    for level in range(depth):
        for ranking in rankings:
            if level < len(ranking):
                merged.setdefault(key(ranking[level]), ranking[level])
    return list(merged.values())


def interleaved(first: list[dict], second: list[dict]) -> list[dict]:
    """The chunks of two rankings taking turns, ``first``'s best first, each chunk once (at its better
    place, by ``chunk_id``): a round-robin merge, as in team-draft interleaving (Radlinski et al. 2008)."""
    merged: dict[str, dict] = {}
    for chunk in (c for pair in zip_longest(first, second) for c in pair if c is not None):
        merged.setdefault(chunk["chunk_id"], chunk)
    return list(merged.values())
