"""Grade: judge each chunk of the hop, update the kept evidence, and apply the loop caps."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.config import RunContext, run_context
from graph.control import stop_after_grade
from graph.services import GraphServices
from graph.state import AgentState
from nodes import stopwatch
from store.chunks import Chunk


def merge_evidence(evidence: list[Chunk], admitted: list[Chunk], budget: int) -> list[Chunk]:
    """Kept evidence after a hop: unique by chunk id, best relevance first, at most ``budget``.
    Earlier evidence wins ties, so a later hop cannot push out equally good early evidence."""
    merged: dict[str, Chunk] = {c["chunk_id"]: c for c in evidence}
    for chunk in admitted:
        merged.setdefault(chunk["chunk_id"], chunk)
    ranked = sorted(enumerate(merged.values()), key=lambda pair: (-pair[1].get("relevance", 0.0), pair[0]))
    return [chunk for _, chunk in ranked[:budget]]


def make_node(services: GraphServices):
    def grade(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Grade the hop's chunks against the original question, keep the relevant ones within
        the evidence budget, and set ``stop_reason`` when a cap fires."""
        ctx = run_context(runtime.context)
        chunks = state.get("chunks", [])
        evidence = state.get("evidence", [])
        with stopwatch() as ms:
            grading = services.deciders(ctx).grader.grade(
                state.get("standalone_question") or state["question"], state["query"], chunks, evidence
            )
        by_id = {v.chunk_id: v for v in grading.verdicts}
        relevant = [
            {**c, "relevance": by_id[c["chunk_id"]].score}
            for c in chunks
            if c["chunk_id"] in by_id and by_id[c["chunk_id"]].relevant
        ]
        kept = merge_evidence(evidence, relevant, ctx.max_evidence)
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
            "sufficient": grading.sufficient,
            "trace": trace,
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }
        if grading.note:
            update["notes"] = [*state.get("notes", []), f"grade (hop {state.get('hops')}): {grading.note}"]
        update["stop_reason"] = stop_after_grade({**state, **update}, ctx)
        return update

    return grade
