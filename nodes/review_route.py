"""Review the route (optional interrupt): a human approves or overrides the router's decision."""

from __future__ import annotations

from graph.interrupts import ROUTE_ACCEPTS, RouteReview, ask_reviewer
from graph.state import AgentState


def review_route(state: AgentState) -> dict:
    """Interrupt with a :class:`RouteReview`; record the approved or overridden route (the
    policy follows it: :func:`graph.policy.after_review_route`)."""
    payload = RouteReview(
        kind="route",
        question=state["question"],
        route=state["route"],
        reason=state.get("route_reason", ""),
        accepts=ROUTE_ACCEPTS,
        error=None,
    )
    decision = ask_reviewer(dict(payload))
    route = decision.route if decision.action == "override" else state["route"]
    update = {"route": route, "stop_reason": "no_retrieval" if route == "direct" else None}
    if route != state["route"]:
        update["route_reason"] = "overridden by the reviewer"
    return update
