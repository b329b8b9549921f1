"""Expand query: before the first hop, add queries written by a query-expansion strategy
(multi-query, HyDE, step-back; see :mod:`deciders.expander`). The first hop then searches the
question and the new queries and fuses their rankings by reciprocal rank. Without a chat model
the strategy is skipped and the notes say so."""

from __future__ import annotations

from graph.context import RunContext
from graph.services import GraphServices
from graph.state import AgentState
from nodes.step import node


def make_node(services: GraphServices):
    @node
    def expand_query(state: AgentState, ctx: RunContext) -> dict:
        """Set ``hop_queries`` to the question plus the strategy's queries, fused by rank."""
        question = state["standalone_question"]
        result = services.deciders(ctx).expander.expand(question, ctx.expansion)
        notes = [f"expand_query ({result.decider}): {result.reason}"]
        if result.note:
            notes.append(f"expand_query: {result.note}")
        update: dict = {"notes": notes}
        if result.queries:
            update.update(hop_queries=[question, *result.queries], fuse_queries=True)
        return update

    return expand_query
