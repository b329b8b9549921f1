"""Decompose: split a compound or comparison question into sub-questions and search for them
in parallel (LangGraph ``Send``), keeping which sub-question found each chunk.

``decompose`` asks the decomposer; when the question splits, one ``search_subquestion`` task per
sub-question runs in the same step, each appending to ``sub_results``; ``merge_subquestions``
then interleaves their chunks (each sub-question's best first) into the first hop that
``grade`` judges. A question that does not split takes the ordinary ``retrieve`` path.
"""

from __future__ import annotations

from typing import TypedDict

from langgraph.runtime import Runtime
from langgraph.types import Send

from graph.config import RunContext, turn_context
from graph.services import GraphServices
from graph.state import AgentState, HopTrace
from nodes import stopwatch
from store.chunks import Chunk


class SubQuestionTask(TypedDict):
    """What one ``search_subquestion`` task receives."""

    index: int
    sub_question: str
    run_context: dict
    """The question's run settings (``k``, filters)."""


def make_decompose(services: GraphServices):
    def decompose(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Set ``sub_questions`` (empty when the question does not split) and say why."""
        ctx = turn_context(state, runtime.context)
        with stopwatch() as ms:
            result = services.deciders(ctx).decomposer.decompose(state.get("standalone_question") or state["question"])
        notes = [*state.get("notes", [])]
        notes.append(f"decompose ({result.decider}): {result.reason}")
        if result.note:
            notes.append(f"decompose: {result.note}")
        return {
            "sub_questions": result.sub_questions,
            "sub_results": None,  # reset the fan-in channel for this question
            "notes": notes,
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }

    return decompose


def fan_out(state: AgentState) -> list[Send] | str:
    """One ``Send`` per sub-question; when the question did not split, ``expand_query`` (with an
    ``expansion`` strategy) or ``retrieve``."""
    subs = state.get("sub_questions") or []
    settings = state.get("run_context", {})
    if not subs:
        return "retrieve" if settings.get("expansion", "none") == "none" else "expand_query"
    return [
        Send("search_subquestion", SubQuestionTask(index=i, sub_question=q, run_context=settings))
        for i, q in enumerate(subs)
    ]


def make_search(services: GraphServices):
    def search_subquestion(task: SubQuestionTask) -> dict:
        """Hybrid search for one sub-question; its chunks are tagged with its index."""
        ctx = turn_context(task, None)
        with stopwatch() as ms:
            found = services.search(task["sub_question"], ctx.retrieve_k, services.chunk_filter(ctx))
            chunks = [{**c, "sub_question": task["index"]} for c in found]
        return {"sub_results": [{"index": task["index"], "chunks": chunks, "elapsed_ms": ms[0]}]}

    return search_subquestion


def merge_subquestions(state: AgentState) -> dict:
    """The first hop from the sub-questions' results: their chunks interleaved by rank (the
    first finder keeps a chunk), recorded in the trace like a retrieval hop."""
    results = sorted(state.get("sub_results") or [], key=lambda r: r["index"])
    merged: dict[str, Chunk] = {}
    for rank in range(max((len(r["chunks"]) for r in results), default=0)):
        for result in results:
            if rank < len(result["chunks"]):
                chunk = result["chunks"][rank]
                merged.setdefault(chunk["chunk_id"], chunk)
    chunks = [{**c, "hop": 1, "rank": rank} for rank, c in enumerate(merged.values())]
    elapsed = sum(r["elapsed_ms"] for r in results)
    subs = state.get("sub_questions", [])
    entry = HopTrace(
        hop=1,
        query=" | ".join(subs),
        query_by="decompose",
        query_reason=f"{len(subs)} sub-questions searched in parallel",
        chunk_ids=[c["chunk_id"] for c in chunks],
        new=len(chunks),
        overlap=0.0,
        elapsed_ms=round(elapsed, 2),
    )
    return {
        "chunks": chunks,
        "hops": 1,
        "tried_queries": list(subs),
        "seen_ids": entry["chunk_ids"],
        "trace": [entry],
        "elapsed_ms": state.get("elapsed_ms", 0.0) + elapsed,
    }
