"""Retrieve: one hybrid-search hop for the current query."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.config import RunContext, run_context
from graph.services import GraphServices
from graph.state import AgentState, HopTrace
from nodes import stopwatch


def make_node(services: GraphServices):
    def retrieve(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Search for ``state['query']``; record the hop, its new chunks and its overlap with
        chunks seen by earlier hops of this question."""
        ctx = run_context(runtime.context)
        query = state["query"]
        with stopwatch() as ms:
            chunks = services.search(query, ctx.retrieve_k)
        seen = set(state.get("seen_ids", []))
        ids = [c["chunk_id"] for c in chunks]
        new = [cid for cid in ids if cid not in seen]
        hops = state.get("hops", 0) + 1
        previous = (state.get("trace") or [{}])[-1] if hops > 1 else {}
        entry = HopTrace(
            hop=hops,
            query=query,
            query_by=previous.get("next_query_by", "question"),
            query_reason=previous.get("next_query_reason", "the question as asked"),
            chunk_ids=ids,
            new=len(new),
            overlap=round(1 - len(new) / len(ids), 3) if ids else 1.0,
            elapsed_ms=ms[0],
        )
        return {
            "chunks": chunks,
            "hops": hops,
            "tried_queries": [*state.get("tried_queries", []), query],
            "seen_ids": [*state.get("seen_ids", []), *new],
            "trace": [*state.get("trace", []), entry],
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }

    return retrieve
