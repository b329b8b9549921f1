"""Build the graph: route → retrieve → grade → follow links / reformulate → generate, joined by
conditional edges.

::

    START → route ─direct→ generate → END
              └─retrieve→ retrieve → grade ─stop→ generate → check_grounding ─grounded→ END
                                                      ↑─────────────── ungrounded (once) ─┘
                              ↑        └─go on→ follow_links ─links→ grade
                              │                      └─no link→ reformulate ─repeated query→ generate
                              └─────────────────────────────────────┘

with three optional human reviews (interrupts, off by default): ``review_route`` after route,
``review_stop`` before a caveat answer, ``review_answer`` after generate (see
:mod:`graph.interrupts`). The edge functions only read ``route``, ``stop_reason``, ``links`` and the
run's switches; the nodes decide them, and :mod:`graph.control` holds the caps.
"""

from __future__ import annotations

from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from graph.config import RunContext
from graph.control import first_search, wants_stop_review
from graph.services import GraphServices
from graph.state import AgentState, InputState, OutputState
from nodes import (
    check_grounding,
    decompose,
    expand_query,
    follow_links,
    generate,
    grade,
    reformulate,
    retrieve,
    route,
)
from nodes.review_answer import review_answer
from nodes.review_route import review_route
from nodes.review_stop import review_stop


def _switch(state: AgentState, switch: str) -> bool:
    """Whether the run's boolean setting ``switch`` is on (from the settings the question
    started with)."""
    return bool(state.get("run_context", {}).get(switch))


def after_route(state: AgentState) -> Literal["review_route", "decompose", "expand_query", "retrieve", "generate"]:
    """Turns that need no documents go straight to the generator (after the optional review);
    with the run's ``decompose`` switch, others are split first, or with an ``expansion``
    strategy, expanded first."""
    if _switch(state, "review_route"):
        return "review_route"
    return "generate" if state.get("route") == "direct" else first_search(state)


def after_grade(state: AgentState) -> Literal["follow_links", "reformulate", "review_stop", "generate"]:
    """Generate once any stop reason is set (enough evidence, or a cap fired); a stop without
    enough evidence goes to the optional stop review first. Otherwise the next hop follows the
    mention graph (when the run's ``graph_hop`` is on and the last hop was not a graph hop),
    else writes a new query: graph hops and entity-query hops alternate along a chain."""
    if not state.get("stop_reason"):
        last = (state.get("trace") or [{}])[-1]
        graph = state.get("run_context", {}).get("graph_hop", True) and not last.get("links")
        return "follow_links" if graph else "reformulate"
    return "review_stop" if wants_stop_review(state) else "generate"


def after_follow_links(state: AgentState) -> Literal["grade", "reformulate"]:
    """Grade the chunks the links reached; with no link to follow, fall back to a new query."""
    return "grade" if state.get("links") else "reformulate"


def after_reformulate(state: AgentState) -> Literal["retrieve", "review_stop", "generate"]:
    """Search again unless the new query repeats one already tried."""
    if not state.get("stop_reason"):
        return "retrieve"
    return "review_stop" if wants_stop_review(state) else "generate"


def after_generate(state: AgentState) -> Literal["check_grounding", "__end__"]:
    """Answers from the documents have their grounding checked; small talk ends."""
    return END if state.get("route") == "direct" else "check_grounding"


def after_check_grounding(state: AgentState) -> Literal["generate", "review_answer", "__end__"]:
    """An ungrounded first draft is regenerated once; then the optional answer review."""
    if state.get("grounding", {}).get("status") == "regenerate":
        return "generate"
    return "review_answer" if _switch(state, "review_answer") else END


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
    builder.add_node("decompose", decompose.make_decompose(services))
    builder.add_node("search_subquestion", decompose.make_search(services))
    builder.add_node("merge_subquestions", decompose.merge_subquestions)
    builder.add_node("expand_query", expand_query.make_node(services))
    builder.add_node("retrieve", retrieve.make_node(services))
    builder.add_node("grade", grade.make_node(services))
    builder.add_node("reformulate", reformulate.make_node(services))
    builder.add_node("follow_links", follow_links.make_node(services))
    builder.add_node("generate", generate.make_node(services))
    builder.add_node("check_grounding", check_grounding.make_node(services))
    builder.add_node("review_route", review_route, destinations=("decompose", "expand_query", "retrieve", "generate"))
    builder.add_node("review_stop", review_stop, destinations=("retrieve", "generate", END))
    builder.add_node("review_answer", review_answer, destinations=("generate", END))
    builder.add_edge(START, "route")
    builder.add_conditional_edges("route", after_route)
    builder.add_conditional_edges("decompose", decompose.fan_out, ["search_subquestion", "expand_query", "retrieve"])
    builder.add_edge("search_subquestion", "merge_subquestions")
    builder.add_edge("merge_subquestions", "grade")
    builder.add_edge("expand_query", "retrieve")
    builder.add_edge("retrieve", "grade")
    builder.add_conditional_edges("grade", after_grade)
    builder.add_conditional_edges("follow_links", after_follow_links)
    builder.add_conditional_edges("reformulate", after_reformulate)
    builder.add_conditional_edges("generate", after_generate)
    builder.add_conditional_edges("check_grounding", after_check_grounding)
    return builder.compile(checkpointer=checkpointer, name="agentic-rag")
