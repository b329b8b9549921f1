"""Reformulate: write the next hop's queries (the stop rule that follows, on a repeated query,
is :func:`graph.policy.stop_after_reformulate`)."""

from __future__ import annotations

from graph.context import RunContext
from graph.services import GraphServices
from graph.state import AgentState
from nodes.step import node, with_note


def make_node(services: GraphServices):
    @node
    def reformulate(state: AgentState, ctx: RunContext) -> dict:
        """Ask the reformulator for the next hop's queries and count the retry; the last hop's
        trace entry records who wrote them and why."""
        result = services.deciders(ctx).reformulator.reformulate(
            state["standalone_question"],
            state.get("tried_queries", []),
            [c for c in state.get("evidence", []) if not c.get("superseded_by")],
            state.get("chunks", []),
        )
        update = {
            "query": result.query,
            "hop_queries": result.queries or [result.query],
            "fuse_queries": False,
            "retries": state.get("retries", 0) + 1,
            "trace": [
                {
                    "hop": state.get("hops", 0),
                    "next_query_by": result.decider,
                    "next_query_reason": result.reason,
                }
            ],
        }
        return with_note(update, "reformulate", result.note, "next_query_note")

    return reformulate
