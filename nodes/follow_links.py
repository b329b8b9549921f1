"""Follow links: a graph hop along the collection's entity-mention graph (:mod:`store.mentions`).

From the best evidence not yet expanded (the first ``tuning.graph_frontier`` kept chunks),
follow every mention edge to the chunks about the mentioned entities, rank those candidates
(links out of a chunk the question names first: the album the question asks about, not a
look-alike; then by relevance to the original question), let the link chooser keep at most
``retrieve_k`` (model-free: the best-ranked; an LLM may pick among the offered candidates
only), and hand them to the grader as the hop's chunks. A first-hop chunk outside the anchors
may be reached again; the link confirms it and it moves up. After a graph hop the entity-query
hop (reformulate → retrieve) comes next, then the graph hop again from the evidence admitted
since: a chain alternates the two. When the frontier links to nothing new, the node records why
and the graph falls back to the entity-query hop.
"""

from __future__ import annotations

from graph.context import RunContext
from graph.services import GraphServices
from graph.state import AgentState, HopTrace
from nodes.step import node, with_note


def make_node(services: GraphServices):
    @node
    def follow_links(state: AgentState, ctx: RunContext) -> dict:
        """One graph hop; sets ``links`` (empty when there was nothing new to follow)."""
        question = state["standalone_question"]
        evidence = state.get("evidence", [])
        expanded = state.get("expanded_ids", [])
        frontier = [c["chunk_id"] for c in evidence if c["chunk_id"] not in expanded][: services.tuning.graph_frontier]
        # A first-hop chunk outside the anchors may be reached again: a link confirms it.
        first_hop = state.get("trace", [{}])[0].get("chunk_ids", [])
        anchors = {c["chunk_id"] for c in evidence if c.get("anchor")}
        exclude = [cid for cid in state.get("seen_ids", []) if cid not in first_hop or cid in anchors]
        links = services.links_from(frontier, exclude, services.chunk_filter(ctx))
        candidates = services.fetch([link["target_id"] for link in links])
        named = {c["chunk_id"] for c in evidence if c.get("named")}
        scores = services.rank_among(question, list(candidates))
        ranked = sorted(
            (
                {**candidates[link["target_id"]], "via": link["entity"], "linked_from": link["source_id"]}
                for link in links
                if link["target_id"] in candidates
            ),
            key=lambda c: (c["linked_from"] not in named, -scores.get(c["chunk_id"], 0.0)),
        )
        choice = services.deciders(ctx).link_chooser.choose(question, ranked, ctx.retrieve_k) if ranked else None
        update: dict = {"expanded_ids": frontier}
        if choice is None or not choice.chosen:
            why = (
                "no link from the evidence to an unseen chunk (hub entities are not followed)"
                if choice is None
                else "the decider chose no link"
            )
            return {**update, "links": [], "notes": [f"follow_links: {why}; entity-query hop instead"]}
        hop = state.get("hops", 0) + 1
        chunks = [
            {**ranked[i], "score": round(scores.get(ranked[i]["chunk_id"], 0.0), 6), "hop": hop, "rank": rank}
            for rank, i in enumerate(choice.chosen)
        ]
        seen = state.get("seen_ids", [])
        new = [c["chunk_id"] for c in chunks if c["chunk_id"] not in seen]
        hop_links = [{"from": c["linked_from"], "entity": c["via"], "to": c["chunk_id"]} for c in chunks]
        entities = list(dict.fromkeys(c["via"] for c in chunks))
        update.update(
            links=hop_links,
            chunks=chunks,
            hops=hop,
            query=" | ".join(entities),
            retries=state.get("retries", 0) + 1,
            seen_ids=new,
            trace=[
                HopTrace(
                    hop=hop,
                    query=" | ".join(entities),
                    query_by=f"graph:{choice.decider}",
                    query_reason=f"{choice.reason}: {len(chunks)} of {len(ranked)} links "
                    f"from {len(frontier)} evidence chunks",
                    links=hop_links,
                    chunk_ids=[c["chunk_id"] for c in chunks],
                    new=len(new),
                    overlap=round(1 - len(new) / len(chunks), 3),
                )
            ],
        )
        return with_note(update, "follow_links", choice.note)

    return follow_links
