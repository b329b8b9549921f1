"""The evidence pool: the relevant chunks kept for a question, merged hop by hop.

Kept evidence is unique by chunk id, at most ``max_evidence`` chunks, ordered so that later hops
cannot push out the best early evidence (:func:`evidence_order`); older versions of a document
are marked superseded by the newest (:func:`prefer_newer`).
"""

from __future__ import annotations

import re
from typing import NotRequired

from core.text import strip_qualifier
from deciders.chunks import HopChunk


class EvidenceChunk(HopChunk):
    """A graded chunk in the pool, with what the pool learned about it."""

    named: NotRequired[bool]
    """First-hop chunks: the question names the chunk's title (an entity it asks about)."""
    anchor: NotRequired[bool]
    """First-hop chunks: later hops cannot displace it (a top chunk, or the best one of a ``named`` title)."""
    confirmed: NotRequired[bool]
    """A first-hop chunk outside the anchors that a later hop reached again (two paths to it)."""
    reworded: NotRequired[bool]
    """Later-hop chunks of a single-hop question found by a reworded query — not by a graph link,
    and not about an entity the question names: they resemble the question as the first hop's
    tail does, without its claim of coming from the question itself, and rank after that tail."""
    repeat: NotRequired[bool]
    """Later-hop chunks found by a query (not a graph link) in a document the pool already holds
    (same title): more of a page the evidence has, ranked after the first hop's tail so that they
    do not crowd out other pages. (A graph link to another passage of the same title stays: in
    Wikipedia-style collections that is a different passage, often a chain's next link.)"""
    superseded_by: NotRequired[str]
    """Set when a newer version of the same document is in the evidence: that chunk's id."""


def names_its_title(question: str, title: str) -> bool:
    """Whether the question names the chunk's title (without a parenthesised qualifier)."""
    name = strip_qualifier(title).lower()
    return len(name) > 2 and re.search(rf"\b{re.escape(name)}\b", question.lower()) is not None


def mark_anchors(question: str, first_hop: list[EvidenceChunk], anchors: int) -> list[EvidenceChunk]:
    """First-hop chunks marked ``named`` (the question names their title) and ``anchor`` (one of
    the ``anchors`` best ranked, the best-ranked chunk of a named title — "Postgres" in a
    question about a manual names the page ``postgres``, whose other chunks are tail — or one
    holding the entry the question names, ``entry_named``: "concat()" names its table row)."""
    marked, held = [], set()
    for chunk in sorted(first_hop, key=lambda c: c.get("rank", 0)):
        named = names_its_title(question, chunk["title"])
        first_of_title = named and chunk["title"] not in held
        if named:
            held.add(chunk["title"])
        anchor = chunk.get("rank", 0) < anchors or first_of_title or bool(chunk.get("entry_named"))
        marked.append({**chunk, "named": named, "anchor": anchor})
    return marked


def evidence_order(chunk: EvidenceChunk) -> tuple:
    """Sort key of kept evidence: the anchors — the first hop's top chunks and its chunks about
    an entity the question names (``named``: both sides of a comparison) — in their order, then
    first-hop chunks a later hop reached again (``confirmed``), then chunks found by later hops,
    round robin (every hop's best, then every hop's second, …), then the rest of the first hop,
    then ``reworded`` and ``repeat`` chunks. A bridge hop thus replaces the first hop's tail — the chunks that
    resemble the question without answering it — while the best first-hop evidence stays; a
    rewording of a single-hop question does not (on one manual page its neighbours are the
    answer's, and the rewording's finds only resemble the question)."""
    hop, rank = chunk.get("hop", 1), chunk.get("rank", 0)
    if chunk.get("anchor"):
        return (0, rank)
    if hop > 1 and (chunk.get("confirmed") or not (chunk.get("reworded") or chunk.get("repeat"))):
        return (1, -1 if chunk.get("confirmed") else rank, hop)
    if hop > 1:
        return (3, rank, hop)
    return (2, rank)


def merge_evidence(evidence: list[EvidenceChunk], admitted: list[EvidenceChunk], budget: int) -> list[EvidenceChunk]:
    """Kept evidence after a hop: unique by chunk id, ordered by :func:`evidence_order`, at most
    ``budget``. The first finding of a chunk wins, except that a later hop reaching a first-hop
    chunk outside the anchors promotes it (two paths to it: the question and a link)."""
    merged: dict[str, EvidenceChunk] = {c["chunk_id"]: c for c in evidence}
    for chunk in admitted:
        held = merged.get(chunk["chunk_id"])
        if held is None:
            merged[chunk["chunk_id"]] = chunk
        elif held.get("hop", 1) == 1 and not held.get("anchor") and chunk.get("hop", 1) > 1:
            merged[chunk["chunk_id"]] = {**chunk, "confirmed": True}
    return sorted(merged.values(), key=evidence_order)[:budget]


def version_key(chunk: EvidenceChunk) -> tuple:
    """Sort key of a document version: the numbers of its stated date or version
    (``2024-05-01`` → (2024, 5, 1), ``2.10`` → (2, 10)), then when it was ingested."""
    return tuple(int(n) for n in re.findall(r"\d+", chunk.get("version") or "")), chunk.get("ingested_at") or ""


def prefer_newer(evidence: list[EvidenceChunk]) -> tuple[list[EvidenceChunk], list[dict]]:
    """Evidence with older versions of a document marked ``superseded_by`` the newest.

    Chunks of the same document title (without qualifier, any case) from different sources,
    at least one stating a date or version, are versions of one document that may conflict;
    the newest (by :func:`version_key`) is preferred.

    Returns:
        The evidence, and the conflicts found:
        ``{"title", "preferred": locator@version, "superseded": [locator@version, …]}``.
    """
    groups: dict[str, list[EvidenceChunk]] = {}
    for chunk in evidence:
        groups.setdefault(strip_qualifier(chunk["title"]).casefold(), []).append(chunk)
    superseded: dict[str, str] = {}
    conflicts = []
    for group in groups.values():
        if len({c["source"] for c in group}) < 2 or not any(c.get("version") for c in group):
            continue
        newest = max(group, key=version_key)
        older = [c for c in group if c["source"] != newest["source"] and version_key(c) < version_key(newest)]
        if not older:
            continue
        superseded.update({c["chunk_id"]: newest["chunk_id"] for c in older})
        conflicts.append(
            {
                "title": newest["title"],
                "preferred": f"{newest.get('locator', newest['source'])}@{newest.get('version')}",
                "superseded": [f"{c.get('locator', c['source'])}@{c.get('version')}" for c in older],
            }
        )
    marked = [{**c, "superseded_by": superseded[c["chunk_id"]]} if c["chunk_id"] in superseded else c for c in evidence]
    return marked, conflicts


def admit(
    question: str,
    hop: int,
    evidence: list[EvidenceChunk],
    relevant: list[EvidenceChunk],
    budget: int,
    anchors: int,
    single_hop: bool = False,
) -> tuple[list[EvidenceChunk], list[dict], int]:
    """The pool after a graded hop.

    Args:
        question: the (standalone) question, to mark first-hop anchors.
        hop: the hop's number (1: anchors are marked).
        evidence: the pool so far.
        relevant: the hop's chunks the grader judged relevant, each with its ``relevance``.
        budget: most chunks kept (``max_evidence``).
        anchors: first-hop chunks, by rank, that later hops cannot displace.
        single_hop: the router classified the question single-hop: a later hop's chunks found
            by a reworded query (not a graph link) and not about an entity the question names
            are marked ``reworded`` (see :func:`evidence_order`).

    Returns:
        (kept evidence, conflicts between document versions, chunks this hop added).
    """
    if hop == 1:
        relevant = mark_anchors(question, relevant, anchors)
    else:
        held = {c["title"] for c in evidence if c["title"]}
        relevant = [
            {
                **c,
                "repeat": c["title"] in held and not c.get("linked_from"),
                "reworded": single_hop and not c.get("linked_from") and not names_its_title(question, c["title"]),
            }
            for c in relevant
        ]
    kept, conflicts = prefer_newer(merge_evidence(evidence, relevant, budget))
    before = {c["chunk_id"] for c in evidence}
    return kept, conflicts, sum(1 for c in kept if c["chunk_id"] not in before)
