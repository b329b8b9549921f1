"""Retrieve: one hybrid-search hop for the current query."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.config import RunContext, turn_context
from graph.services import GraphServices
from graph.state import AgentState, HopTrace
from nodes import stopwatch
from store.chunks import RRF_K, Chunk

PER_QUERY_K = 3
"""Chunks kept per query when a hop searches several (one per bridge entity), merged round robin
so that every bridge hypothesis's best chunk comes before any second one (MuSiQue dev, all
supporting found @5: 0.28 with 2 per query in query order, 0.36 with 3 round robin)."""


def rrf_fuse(rankings: list[list[Chunk]]) -> list[Chunk]:
    """Reciprocal rank fusion (Cormack et al. 2009) of several rankings: each chunk scores
    ``Σ 1 / (RRF_K + rank)`` over the rankings it appears in; best first."""
    scores: dict[str, float] = {}
    chunks: dict[str, Chunk] = {}
    for ranking in rankings:
        for rank, chunk in enumerate(ranking, 1):
            scores[chunk["chunk_id"]] = scores.get(chunk["chunk_id"], 0.0) + 1.0 / (RRF_K + rank)
            chunks.setdefault(chunk["chunk_id"], chunk)
    return [chunks[cid] for cid in sorted(scores, key=lambda cid: (-scores[cid], cid))]


def make_node(services: GraphServices):
    def retrieve(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Search for each of the hop's queries (``hop_queries``; the top ``retrieve_k`` for a
        single query; for several, the top ``PER_QUERY_K`` each merged round robin, or with
        ``fuse_queries`` the top ``retrieve_k`` of their reciprocal-rank fusion); record
        the hop, its new chunks and its overlap with chunks seen by earlier hops."""
        ctx = turn_context(state, runtime.context)
        queries = state.get("hop_queries") or [state["query"]]
        hops = state.get("hops", 0) + 1
        fuse = state.get("fuse_queries", False) and len(queries) > 1
        k = ctx.retrieve_k if len(queries) == 1 or fuse else min(PER_QUERY_K, ctx.retrieve_k)
        where = services.chunk_filter(ctx)
        with stopwatch() as ms:
            rankings = [services.search(query, k, where) for query in queries]
            found: dict[str, Chunk] = {}
            if fuse:
                found = {c["chunk_id"]: c for c in rrf_fuse(rankings)[: ctx.retrieve_k]}
            else:  # round robin: every query's best chunk, then every query's second, …
                for depth in range(k):
                    for query, ranking in zip(queries, rankings, strict=True):
                        if depth < len(ranking):
                            chunk = ranking[depth]
                            found.setdefault(chunk["chunk_id"], {**chunk, "via": query} if hops > 1 else chunk)
        chunks = [{**chunk, "hop": hops, "rank": rank} for rank, chunk in enumerate(found.values())]
        seen = set(state.get("seen_ids", []))
        ids = [c["chunk_id"] for c in chunks]
        new = [cid for cid in ids if cid not in seen]
        previous = (state.get("trace") or [{}])[-1] if hops > 1 else {}
        entry = HopTrace(
            hop=hops,
            query=" | ".join(queries),
            query_by=previous.get("next_query_by", "question"),
            query_reason=previous.get("next_query_reason", "the question as asked"),
            chunk_ids=ids,
            new=len(new),
            overlap=round(1 - len(new) / len(ids), 3) if ids else 1.0,
            elapsed_ms=ms[0],
        )
        update = {
            "chunks": chunks,
            "hops": hops,
            "tried_queries": [*state.get("tried_queries", []), *queries],
            "seen_ids": [*state.get("seen_ids", []), *new],
            "trace": [*state.get("trace", []), entry],
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }
        if not chunks and where:
            update["notes"] = [
                *state.get("notes", []),
                f"retrieve: no chunk matches sources={list(where.sources)} filters={dict(where.fields)} "
                "(sources are absolute paths or scheme:name keys: use patterns such as */name.md)",
            ]
        return update

    return retrieve
