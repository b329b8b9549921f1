"""Retrieve: one hybrid-search hop for the current queries."""

from __future__ import annotations

from graph.context import RunContext
from graph.policy import last_hop
from graph.services import GraphServices
from graph.state import AgentState, HopTrace
from nodes.step import node
from store.fusion import by_score, round_robin, weighted_rrf


def make_node(services: GraphServices):
    @node
    def retrieve(state: AgentState, ctx: RunContext) -> dict:
        """Search for each of the hop's queries (``hop_queries``): the top ``retrieve_k`` for a
        single query; for several, the top ``tuning.per_query_k`` each merged round robin, or
        with ``fuse_queries`` (query expansion) the top ``retrieve_k`` of their reciprocal-rank
        fusion. Records the hop, its new chunks and its overlap with chunks seen before."""
        queries = state.get("hop_queries") or [state["query"]]
        hop = state.get("hops", 0) + 1
        fuse = state.get("fuse_queries", False) and len(queries) > 1
        k = ctx.retrieve_k if len(queries) == 1 or fuse else min(services.tuning.per_query_k, ctx.retrieve_k)
        where = services.chunk_filter(ctx)
        rankings = [services.search(query, k, where) for query in queries]
        if fuse:
            by_id = {c["chunk_id"]: c for ranking in reversed(rankings) for c in ranking}
            fused = weighted_rrf(([c["chunk_id"] for c in ranking], 1.0) for ranking in rankings)
            found = [by_id[cid] for cid in by_score(fused)[: ctx.retrieve_k]]
        else:  # every query's best chunk, then every query's second, …; later hops say which query
            tagged = [[{**c, "via": q} if hop > 1 else c for c in r] for q, r in zip(queries, rankings, strict=True)]
            found = round_robin(tagged, key=lambda c: c["chunk_id"], depth=k)
        chunks = [{**chunk, "hop": hop, "rank": rank} for rank, chunk in enumerate(found)]
        seen = set(state.get("seen_ids", []))
        ids = [c["chunk_id"] for c in chunks]
        new = [cid for cid in ids if cid not in seen]
        previous = last_hop(state) if hop > 1 else {}
        update = {
            "chunks": chunks,
            "hops": hop,
            "tried_queries": list(queries),
            "seen_ids": new,
            "trace": [
                HopTrace(
                    hop=hop,
                    query=" | ".join(queries),
                    query_by=previous.get("next_query_by", "question"),
                    query_reason=previous.get("next_query_reason", "the question as asked"),
                    chunk_ids=ids,
                    new=len(new),
                    overlap=round(1 - len(new) / len(ids), 3) if ids else 1.0,
                )
            ],
        }
        if not chunks and where:
            update["notes"] = [
                f"retrieve: no chunk matches sources={list(where.sources)} filters={dict(where.fields)} "
                "(sources are absolute paths or scheme:name keys: use patterns such as */name.md)"
            ]
        return update

    return retrieve
