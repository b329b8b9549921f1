"""Build the graph: route → retrieve → grade → reformulate → generate, joined by conditional edges.

::

    START → route ─direct──────────────────────────────────────┐
              └─retrieve→ retrieve → grade ─stop────────────→ generate → END
                              ↑          └─go on→ reformulate ─repeated query─┘
                              └──────────────────────────┘

with three optional human reviews (interrupts, off by default): ``review_route`` after route,
``review_stop`` before a caveat answer, ``review_answer`` after generate (see
:mod:`graph.interrupts`). The edge functions only read ``route``, ``stop_reason`` and the run's
review switches; the nodes decide them, and :mod:`graph.control` holds the caps.
"""

from __future__ import annotations

from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.config import RunContext
from graph.control import wants_stop_review
from graph.services import GraphServices
from graph.state import AgentState, InputState, OutputState
from nodes import generate, grade, reformulate, retrieve, route
from nodes.review_answer import review_answer
from nodes.review_route import review_route
from nodes.review_stop import review_stop


def _review(state: AgentState, switch: str) -> bool:
    return bool(state.get("run_context", {}).get(switch))


def after_route(state: AgentState) -> Literal["review_route", "retrieve", "generate"]:
    """Turns that need no documents go straight to the generator (after the optional review)."""
    if _review(state, "review_route"):
        return "review_route"
    return "generate" if state.get("route") == "direct" else "retrieve"


def after_grade(state: AgentState) -> Literal["reformulate", "review_stop", "generate"]:
    """Generate once any stop reason is set (enough evidence, or a cap fired); a stop without
    enough evidence goes to the optional stop review first."""
    if not state.get("stop_reason"):
        return "reformulate"
    return "review_stop" if wants_stop_review(state) else "generate"


def after_reformulate(state: AgentState) -> Literal["retrieve", "review_stop", "generate"]:
    """Search again unless the new query repeats one already tried."""
    if not state.get("stop_reason"):
        return "retrieve"
    return "review_stop" if wants_stop_review(state) else "generate"


def after_generate(state: AgentState) -> Literal["review_answer", "__end__"]:
    """Answers from the documents go to the optional answer review; small talk does not."""
    return "review_answer" if _review(state, "review_answer") and state.get("route") != "direct" else END


def build_graph(services: GraphServices, checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """Compile the agentic RAG graph.

    Args:
        services: the retriever and deciders the nodes use.
        checkpointer: a LangGraph checkpointer (the CLI passes the SQLite saver); ``None`` when
            the LangGraph server supplies persistence.

    Returns:
        The compiled graph; input ``{"question": str}``, run settings as ``context``
        (:class:`RunContext`), thread id in ``config["configurable"]["thread_id"]``.
    """
    builder = StateGraph(AgentState, context_schema=RunContext, input_schema=InputState, output_schema=OutputState)
    builder.add_node("route", route.make_node(services))
    builder.add_node("retrieve", retrieve.make_node(services))
    builder.add_node("grade", grade.make_node(services))
    builder.add_node("reformulate", reformulate.make_node(services))
    builder.add_node("generate", generate.make_node(services))
    builder.add_node("review_route", review_route, destinations=("retrieve", "generate"))
    builder.add_node("review_stop", review_stop, destinations=("retrieve", "generate", END))
    builder.add_node("review_answer", review_answer, destinations=("generate", END))
    builder.add_edge(START, "route")
    builder.add_conditional_edges("route", after_route)
    builder.add_edge("retrieve", "grade")
    builder.add_conditional_edges("grade", after_grade)
    builder.add_conditional_edges("reformulate", after_reformulate)
    builder.add_conditional_edges("generate", after_generate)
    return builder.compile(checkpointer=checkpointer, name="agentic-rag")
