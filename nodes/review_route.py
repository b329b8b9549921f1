"""Review the route (optional interrupt): a human approves or overrides the router's decision."""

from __future__ import annotations

from typing import Literal

from langgraph.types import Command

from graph.control import first_search
from graph.interrupts import ROUTE_ACCEPTS, RouteReview, ask_reviewer
from graph.state import AgentState


def review_route(state: AgentState) -> Command[Literal["decompose", "expand_query", "retrieve", "generate"]]:
    """Interrupt with a :class:`RouteReview`; continue down the approved or overridden route."""
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
    return Command(update=update, goto="generate" if route == "direct" else first_search(state))
