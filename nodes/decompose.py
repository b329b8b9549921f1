"""Decompose: split a compound or comparison question into sub-questions and search for them
in parallel (LangGraph ``Send``), keeping which sub-question found each chunk.

``decompose`` asks the decomposer; when the question splits, the policy
(:func:`graph.policy.after_decompose`) starts one ``search_subquestion`` task per sub-question in
the same step, each appending to ``sub_results``; ``merge_subquestions`` then interleaves their
chunks (each sub-question's best first) into the first hop that ``grade`` judges. A question that
does not split takes the ordinary path to ``retrieve``.
"""

from __future__ import annotations

import time
from typing import TypedDict

from graph.context import RunContext, turn_context
from graph.services import GraphServices
from graph.state import AgentState, HopTrace
from nodes.step import node
from store.fusion import round_robin


class SubQuestionTask(TypedDict):
    """What one ``search_subquestion`` task receives (the ``Send`` payload)."""

    index: int
    sub_question: str
    run_context: dict
    """The question's run settings (``k``, filters)."""


def make_decompose(services: GraphServices):
    @node
    def decompose(state: AgentState, ctx: RunContext) -> dict:
        """Set ``sub_questions`` (empty when the question does not split) and say why."""
        result = services.deciders(ctx).decomposer.decompose(state["standalone_question"])
        notes = [f"decompose ({result.decider}): {result.reason}"]
        if result.note:
            notes.append(f"decompose: {result.note}")
        return {"sub_questions": result.sub_questions, "notes": notes}

    return decompose


def make_search(services: GraphServices):
    def search_subquestion(task: SubQuestionTask) -> dict:
        """Hybrid search for one sub-question; its chunks are tagged with its index. Timed
        here, not by :func:`nodes.step.node`: parallel tasks report their time for
        ``merge_subquestions`` to charge once."""
        ctx = turn_context(task, None)
        start = time.perf_counter()
        found = services.search(task["sub_question"], ctx.retrieve_k, services.chunk_filter(ctx))
        chunks = [{**c, "sub_question": task["index"]} for c in found]
        ms = round((time.perf_counter() - start) * 1000, 2)
        return {"sub_results": [{"index": task["index"], "chunks": chunks, "elapsed_ms": ms}]}

    return search_subquestion


@node
def merge_subquestions(state: AgentState, ctx: RunContext) -> dict:
    """The first hop from the sub-questions' results: their chunks interleaved by rank (the
    first finder keeps a chunk), recorded in the trace like a retrieval hop; the parallel
    searches' time is charged to the question."""
    results = sorted(state.get("sub_results") or [], key=lambda r: r["index"])
    merged = round_robin([r["chunks"] for r in results], key=lambda c: c["chunk_id"])
    chunks = [{**c, "hop": 1, "rank": rank} for rank, c in enumerate(merged)]
    elapsed = round(sum(r["elapsed_ms"] for r in results), 2)
    subs = state.get("sub_questions", [])
    return {
        "chunks": chunks,
        "hops": 1,
        "tried_queries": list(subs),
        "seen_ids": [c["chunk_id"] for c in chunks],
        "trace": [
            HopTrace(
                hop=1,
                query=" | ".join(subs),
                query_by="decompose",
                query_reason=f"{len(subs)} sub-questions searched in parallel",
                chunk_ids=[c["chunk_id"] for c in chunks],
                new=len(chunks),
                overlap=0.0,
                elapsed_ms=elapsed,
            )
        ],
        "elapsed_ms": elapsed,
    }
