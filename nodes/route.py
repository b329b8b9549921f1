"""Route: open a new turn and decide whether it needs documents."""

from __future__ import annotations

from dataclasses import asdict

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from graph.config import RunContext, run_context
from graph.control import validate_question
from graph.services import GraphServices
from graph.state import AgentState, fresh_turn
from nodes import stopwatch


def make_node(services: GraphServices):
    def route(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        """Reset every per-question field, record the question in the conversation, and ask
        the router for ``retrieve`` or ``direct``.

        Raises:
            InvalidQuestionError: empty or overlong question (before anything is written).
        """
        ctx = run_context(runtime.context)
        question = validate_question(state.get("question"), ctx.max_question_chars)
        conversation = list(state.get("messages", []))
        with stopwatch() as ms:
            decision = services.deciders(ctx).router.route(question, conversation)
        update = fresh_turn(question)
        standalone = decision.standalone_question or question
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
            elapsed_ms=ms[0],
            run_context=asdict(ctx),
        )
        if decision.note:
            update["notes"] = [f"route: {decision.note}; chose retrieve"]
        return update

    return route
