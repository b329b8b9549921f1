"""Review a stop without enough evidence (optional interrupt): a human supplies a better query
for one more hop, accepts the caveat answer, or stops."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage
from langgraph.graph import END
from langgraph.types import Command

from graph.control import CAVEAT_SHOWN, MAX_HUMAN_HOPS, is_repeated
from graph.interrupts import STOP_ACCEPTS, StopDecisionIn, StopReview, ask_reviewer, evidence_views
from graph.state import AgentState

STOPPED_TEXT = "Stopped by the reviewer before an answer was written."


def review_stop(state: AgentState) -> Command[Literal["retrieve", "generate", "__end__"]]:
    """Interrupt with a :class:`StopReview`. A query already tried this turn is refused (the
    reviewer is asked again); an accepted query runs one more hop, counted in ``human_hops``."""
    tried = state.get("tried_queries", [])
    shown = state.get("evidence") or state.get("chunks", [])[:CAVEAT_SHOWN]
    payload = StopReview(
        kind="stop",
        question=state["question"],
        stop_reason=state.get("stop_reason") or "",
        tried_queries=tried,
        hops=state.get("hops", 0),
        extra_hops_left=MAX_HUMAN_HOPS - state.get("human_hops", 0) - 1,
        evidence=evidence_views(shown),
        accepts=STOP_ACCEPTS,
        error=None,
    )

    def not_tried(decision: StopDecisionIn) -> str | None:
        if decision.action == "query" and is_repeated(decision.query, tried):
            return f"the query {decision.query!r} was already tried; tried: {tried}"
        return None

    decision = ask_reviewer(dict(payload), not_tried)
    if decision.action == "accept":
        return Command(update={"reviewed": "accepted"}, goto="generate")
    if decision.action == "stop":
        update = {
            "stop_reason": "stopped_by_reviewer",
            "answer": STOPPED_TEXT,
            "citations": [],
            "messages": [AIMessage(STOPPED_TEXT)],
            "reviewed": "stopped",
        }
        return Command(update=update, goto=END)
    trace = [*state.get("trace", [])]
    if trace:
        trace[-1] = {**trace[-1], "next_query_by": "reviewer", "next_query_reason": "supplied at the stop review"}
    update = {
        "query": decision.query.strip(),
        "hop_queries": [decision.query.strip()],
        "stop_reason": None,
        "human_hops": state.get("human_hops", 0) + 1,
        "trace": trace,
    }
    return Command(update=update, goto="retrieve")
