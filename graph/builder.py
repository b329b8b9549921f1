"""Build the graph: route → retrieve → grade → reformulate → generate, joined by conditional edges.

::

    START → route ─direct──────────────────────────────┐
              └─retrieve→ retrieve → grade ─stop──────→ generate → END
                              ↑          └─go on→ reformulate ─repeated query─┘
                              └──────────────────────────┘

The edge functions only read ``route`` and ``stop_reason``; the nodes decide them, and
:mod:`graph.control` holds the caps.
"""

from __future__ import annotations

from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.config import RunContext
from graph.services import GraphServices
from graph.state import AgentState, InputState, OutputState
from nodes import generate, grade, reformulate, retrieve, route


def after_route(state: AgentState) -> Literal["retrieve", "generate"]:
    """Turns that need no documents go straight to the generator."""
    return "generate" if state.get("route") == "direct" else "retrieve"


def after_grade(state: AgentState) -> Literal["reformulate", "generate"]:
    """Generate once any stop reason is set (enough evidence, or a cap fired)."""
    return "generate" if state.get("stop_reason") else "reformulate"


def after_reformulate(state: AgentState) -> Literal["retrieve", "generate"]:
    """Search again unless the new query repeats one already tried."""
    return "generate" if state.get("stop_reason") else "retrieve"


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
    builder.add_edge(START, "route")
    builder.add_conditional_edges("route", after_route)
    builder.add_edge("retrieve", "grade")
    builder.add_conditional_edges("grade", after_grade)
    builder.add_conditional_edges("reformulate", after_reformulate)
    builder.add_edge("generate", END)
    return builder.compile(checkpointer=checkpointer, name="agentic-rag")
