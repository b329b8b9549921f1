"""Expand query: before the first hop, add queries written by a query-expansion strategy
(multi-query, HyDE, step-back; see :class:`deciders.llm.LLMExpander`). The first hop then
searches the question and the new queries and fuses their rankings by reciprocal rank.
Without a chat model the strategy is skipped and the notes say so."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.config import RunContext, turn_context
from graph.services import GraphServices
from graph.state import AgentState
from nodes import stopwatch


def make_node(services: GraphServices):
    def expand_query(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Set ``hop_queries`` to the question plus the strategy's queries, fused by rank."""
        ctx = turn_context(state, runtime.context)
        question = state.get("standalone_question") or state["question"]
        with stopwatch() as ms:
            result = services.deciders(ctx).expander.expand(question, ctx.expansion)
        notes = [*state.get("notes", []), f"expand_query ({result.decider}): {result.reason}"]
        if result.note:
            notes.append(f"expand_query: {result.note}")
        update = {"notes": notes, "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0]}
        if result.queries:
            update.update(hop_queries=[question, *result.queries], fuse_queries=True)
        return update

    return expand_query
