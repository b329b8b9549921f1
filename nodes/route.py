"""Route: open a new turn and decide whether it needs documents."""

from __future__ import annotations

from dataclasses import asdict

from langchain_core.messages import HumanMessage
from langgraph.types import Overwrite

from graph.context import RunContext, validate_question
from graph.services import GraphServices
from graph.state import AgentState, fresh_turn
from nodes.step import node


def make_node(services: GraphServices):
    @node(new_turn=True)
    def route(state: AgentState, ctx: RunContext) -> dict:
        """Reset every per-question field, record the question and its run settings, and ask
        the router for ``retrieve`` or ``direct``; the standalone question of a retrieval is the question
        as searched (:meth:`graph.services.GraphServices.searched_question`: typos read as meant, names
        spelled as the collection's entries, ``autovacuum_naptime``).

        Raises:
            InvalidQuestionError: empty or overlong question (before anything is written).
        """
        question = validate_question(state.get("question"), ctx.max_question_chars)
        decision = services.deciders(ctx).router.route(question, list(state.get("messages", [])))
        standalone = decision.standalone_question or question
        if decision.route != "direct":  # a turn answered without documents reads nothing of the collection
            standalone = services.searched_question(standalone)
        update = fresh_turn(question)
        update.update(
            standalone_question=standalone,
            query=standalone,
            hop_queries=[standalone],
            messages=[HumanMessage(question)],
            route=decision.route,
            route_reason=f"{decision.reason} ({decision.decider}); complexity {decision.complexity}"
            + (f" ({decision.complexity_reason})" if decision.complexity_reason else ""),
            complexity=decision.complexity,
            stop_reason="no_retrieval" if decision.route == "direct" else None,
            run_context=asdict(ctx),
        )
        if decision.note:
            update["notes"] = Overwrite([f"route: {decision.note}; chose retrieve"])
        return update

    return route
