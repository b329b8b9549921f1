"""Review a stop without enough evidence (optional interrupt): a human supplies a better query
for one more hop, accepts the answer from what was found, or stops."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from graph.interrupts import STOP_ACCEPTS, StopDecisionIn, StopReview, ask_reviewer, evidence_views
from graph.policy import MAX_HUMAN_HOPS, generation_plan, is_repeated
from graph.state import AgentState

STOPPED_TEXT = "Stopped by the reviewer before an answer was written."


def review_stop(state: AgentState) -> dict:
    """Interrupt with a :class:`StopReview`. A query already tried this turn is refused (the
    reviewer is asked again); an accepted query runs one more hop, counted in ``human_hops``
    (the policy routes on ``reviewed``: :func:`graph.policy.after_review_stop`)."""
    tried = state.get("tried_queries", [])
    _, shown = generation_plan(state)  # the evidence the answer would come from
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
        return {"reviewed": "accepted"}
    if decision.action == "stop":
        update = {
            "stop_reason": "stopped_by_reviewer",
            "answer": STOPPED_TEXT,
            "citations": [],
            "messages": [AIMessage(STOPPED_TEXT)],
            "reviewed": "stopped",
        }
        return update
    return {
        "query": decision.query.strip(),
        "hop_queries": [decision.query.strip()],
        "stop_reason": None,
        "human_hops": state.get("human_hops", 0) + 1,
        "trace": [
            {
                "hop": state.get("hops", 0),
                "next_query_by": "reviewer",
                "next_query_reason": "supplied at the stop review",
            }
        ],
    }
