"""Grade: judge each chunk of the hop, update the kept evidence, and apply the loop caps."""

from __future__ import annotations

import re

from langgraph.runtime import Runtime

from deciders.text import strip_qualifier
from graph.config import RunContext, turn_context
from graph.control import stop_after_grade
from graph.services import GraphServices
from graph.state import AgentState
from nodes import stopwatch
from store.chunks import Chunk


def names_its_title(question: str, title: str) -> bool:
    """Whether the question names the chunk's title (without a parenthesised qualifier)."""
    name = strip_qualifier(title).lower()
    return len(name) > 2 and re.search(rf"\b{re.escape(name)}\b", question.lower()) is not None


ANCHORS = 2
"""First-hop chunks (by their rank for the question) that later hops cannot displace."""


def is_anchor(chunk: Chunk) -> bool:
    """Whether a kept chunk is anchored (marked by the first hop's grading: ``anchor``)."""
    return bool(chunk.get("anchor"))


def evidence_order(chunk: Chunk) -> tuple:
    """Sort key of kept evidence: the anchors — the first hop's top chunks and its chunks about
    an entity the question names (``named``: both sides of a comparison) — in their order, then
    first-hop chunks a later hop reached again (``confirmed``), then chunks found by later hops,
    round robin (every hop's best, then every hop's second, …), then
    the rest of the first hop. A bridge hop thus replaces the first hop's tail — the chunks that
    resemble the question without answering it — while the best first-hop evidence stays."""
    hop, rank = chunk.get("hop", 1), chunk.get("rank", 0)
    if is_anchor(chunk):
        return (0, rank)
    if hop > 1:
        return (1, -1 if chunk.get("confirmed") else rank, hop)
    return (2, rank)


def merge_evidence(evidence: list[Chunk], admitted: list[Chunk], budget: int) -> list[Chunk]:
    """Kept evidence after a hop: unique by chunk id, ordered by :func:`evidence_order`, at most
    ``budget``. The first finding of a chunk wins, except that a later hop reaching a first-hop
    chunk outside the anchors promotes it (two paths to it: the question and a link)."""
    merged: dict[str, Chunk] = {c["chunk_id"]: c for c in evidence}
    for chunk in admitted:
        held = merged.get(chunk["chunk_id"])
        if held is None:
            merged[chunk["chunk_id"]] = chunk
        elif held.get("hop", 1) == 1 and not is_anchor(held) and chunk.get("hop", 1) > 1:
            merged[chunk["chunk_id"]] = {**chunk, "confirmed": True}
    return sorted(merged.values(), key=evidence_order)[:budget]


def version_key(chunk: Chunk) -> tuple:
    """Sort key of a document version: the numbers of its stated date or version
    (``2024-05-01`` → (2024, 5, 1), ``2.10`` → (2, 10)), then when it was ingested."""
    return tuple(int(n) for n in re.findall(r"\d+", chunk.get("version") or "")), chunk.get("ingested_at") or ""


def prefer_newer(evidence: list[Chunk]) -> tuple[list[Chunk], list[dict]]:
    """Evidence with older versions of a document marked ``superseded_by`` the newest.

    Chunks of the same document title (without qualifier, any case) from different sources,
    at least one stating a date or version, are versions of one document that may conflict;
    the newest (by :func:`version_key`) is preferred. Returns the evidence and the conflicts
    found: ``{"title", "preferred": locator@version, "superseded": [locator@version, …]}``.
    """
    groups: dict[str, list[Chunk]] = {}
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


def make_node(services: GraphServices):
    def grade(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Grade the hop's chunks against the original question, keep the relevant ones within
        the evidence budget, and set ``stop_reason`` when a cap fires."""
        ctx = turn_context(state, runtime.context)
        chunks = state.get("chunks", [])
        evidence = state.get("evidence", [])
        question = state.get("standalone_question") or state["question"]
        with stopwatch() as ms:
            grading = services.deciders(ctx).grader.grade(question, state["query"], chunks, evidence)
        by_id = {v.chunk_id: v for v in grading.verdicts}
        relevant = [
            {**c, "relevance": by_id[c["chunk_id"]].score}
            for c in chunks
            if c["chunk_id"] in by_id and by_id[c["chunk_id"]].relevant
        ]
        if state.get("hops", 1) == 1:
            for c in relevant:
                c["named"] = names_its_title(question, c["title"])
                c["anchor"] = c.get("rank", 0) < ANCHORS or c["named"]
        kept, conflicts = prefer_newer(merge_evidence(evidence, relevant, ctx.max_evidence))
        before = {c["chunk_id"] for c in evidence}
        admitted = sum(1 for c in kept if c["chunk_id"] not in before)
        trace = [*state.get("trace", [])]
        trace[-1] = {
            **trace[-1],
            "verdicts": {v.chunk_id: v.relevant for v in grading.verdicts},
            "scores": {v.chunk_id: v.score for v in grading.verdicts},
            "admitted": admitted,
            "grader": grading.decider,
            "sufficient": grading.sufficient,
            **({"grader_note": grading.note} if grading.note else {}),
            "elapsed_ms": round(trace[-1].get("elapsed_ms", 0.0) + ms[0], 2),
        }
        update = {
            "evidence": kept,
            "conflicts": conflicts,
            "sufficient": grading.sufficient,
            "trace": trace,
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }
        if grading.note:
            update["notes"] = [*state.get("notes", []), f"grade (hop {state.get('hops')}): {grading.note}"]
        update["stop_reason"] = stop_after_grade({**state, **update}, ctx)
        return update

    return grade
