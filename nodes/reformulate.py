"""Reformulate: write the next query; stop when it repeats one already tried."""

from __future__ import annotations

from langgraph.runtime import Runtime

from graph.config import RunContext, turn_context
from graph.control import is_repeated
from graph.services import GraphServices
from graph.state import AgentState
from nodes import stopwatch


def make_node(services: GraphServices):
    def reformulate(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Ask the reformulator for the next hop's queries and count the retry. When every one
        equals (after normalisation) a query tried this turn, ``stop_reason`` is
        ``'repeated_query'``, or ``'sufficient_evidence'`` when the evidence was judged enough
        (after a graph hop, which does not stop the loop by itself)."""
        ctx = turn_context(state, runtime.context)
        tried = state.get("tried_queries", [])
        with stopwatch() as ms:
            result = services.deciders(ctx).reformulator.reformulate(
                state.get("standalone_question") or state["question"],
                tried,
                [c for c in state.get("evidence", []) if not c.get("superseded_by")],
                state.get("chunks", []),
            )
        trace = [*state.get("trace", [])]
        trace[-1] = {
            **trace[-1],
            "next_query_by": result.decider,
            "next_query_reason": result.reason,
            **({"next_query_note": result.note} if result.note else {}),
            "elapsed_ms": round(trace[-1].get("elapsed_ms", 0.0) + ms[0], 2),
        }
        queries = result.queries or [result.query]
        update = {
            "query": result.query,
            "hop_queries": queries,
            "fuse_queries": False,
            "retries": state.get("retries", 0) + 1,
            "trace": trace,
            "elapsed_ms": state.get("elapsed_ms", 0.0) + ms[0],
        }
        if result.note:
            update["notes"] = [*state.get("notes", []), f"reformulate: {result.note}"]
        if all(is_repeated(q, tried) for q in queries):
            # Nothing new to search. After a graph hop whose evidence was judged sufficient (and
            # waited for this hop to confirm it), that verdict stands.
            update["stop_reason"] = "sufficient_evidence" if state.get("sufficient") else "repeated_query"
        return update

    return reformulate
