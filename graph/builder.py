"""Build the graph: route → retrieve → grade → follow links / reformulate → generate, joined by
the conditional edges of :mod:`graph.policy`.

::

    START → route ─direct→ generate → END
              ├─(decompose)→ decompose ═Send×n═> search_subquestion → merge_subquestions → grade
              ├─(expansion)→ expand_query → retrieve
              └─retrieve→ retrieve → grade ─stop→ generate → check_grounding ─grounded→ END
                                                      ↑─────────────── ungrounded (once) ─┘
                              ↑        └─go on→ follow_links ─links→ grade
                              │                      └─no link→ reformulate ─repeated query→ generate
                              └─────────────────────────────────────┘

with three optional human reviews (interrupts, off by default): ``review_route`` after route,
``review_stop`` before answering a search that stopped short, ``review_answer`` after generate (see
:mod:`graph.interrupts`). The node functions are passed in (:func:`nodes.make_nodes` builds
them), so this layer knows the topology and the policy, not how a node does its work.
"""

from __future__ import annotations

from typing import Callable, Mapping

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from graph import policy
from graph.context import RunContext, turn_context
from graph.state import AgentState, InputState, OutputState, apply_update

NODES = (
    "route",
    "review_route",
    "decompose",
    "search_subquestion",
    "merge_subquestions",
    "expand_query",
    "retrieve",
    "grade",
    "follow_links",
    "reformulate",
    "review_stop",
    "generate",
    "check_grounding",
    "review_answer",
)
"""Every node of the graph; :func:`build_graph` needs a function for each."""

EDGES = {
    "route": policy.after_route,
    "review_route": policy.after_review_route,
    "decompose": policy.after_decompose,
    "grade": policy.after_grade,
    "follow_links": policy.after_follow_links,
    "reformulate": policy.after_reformulate,
    "review_stop": policy.after_review_stop,
    "generate": policy.after_generate,
    "check_grounding": policy.after_check_grounding,
    "review_answer": policy.after_review_answer,
}
"""Conditional edges: node → the policy function choosing what follows it."""
FAN_OUT = {"decompose": ["search_subquestion", "expand_query", "retrieve"]}
"""Destinations of edges that may return ``Send`` tasks (their type cannot name them)."""


def with_stop_rule(node: Callable, rule: Callable) -> Callable:
    """``node`` followed by the policy's stop ``rule`` on the state it leaves: the node returns
    facts, the rule adds ``stop_reason`` (``None``: go on)."""

    def step(state: AgentState, runtime: Runtime[RunContext]) -> dict:
        update = node(state, runtime)
        ctx = turn_context(state, runtime.context)
        return {**update, "stop_reason": rule(apply_update(state, update), ctx)}

    step.__name__ = getattr(node, "__name__", "step")
    return step


def build_graph(nodes: Mapping[str, Callable], checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    """Compile the agentic RAG graph.

    Args:
        nodes: a function ``(state, runtime) -> partial update`` for every name in :data:`NODES`
            (``search_subquestion`` takes its ``Send`` payload instead of the state).
        checkpointer: a LangGraph checkpointer (the app passes the SQLite saver); ``None`` when
            the LangGraph server supplies persistence.

    Returns:
        The compiled graph; input ``{"question": str}``, run settings as ``context``
        (:class:`RunContext`), thread id in ``config["configurable"]["thread_id"]``.

    Raises:
        ValueError: ``nodes`` lacks a node or names one the graph does not have.
    """
    if set(nodes) != set(NODES):
        raise ValueError(f"nodes must be exactly {sorted(NODES)}; got {sorted(nodes)}")
    builder = StateGraph(AgentState, context_schema=RunContext, input_schema=InputState, output_schema=OutputState)
    for name in NODES:
        rule = policy.STOP_RULES.get(name)
        builder.add_node(name, with_stop_rule(nodes[name], rule) if rule else nodes[name])
    builder.add_edge(START, "route")
    for name, edge in EDGES.items():
        builder.add_conditional_edges(name, edge, FAN_OUT.get(name))
    builder.add_edge("search_subquestion", "merge_subquestions")
    builder.add_edge("merge_subquestions", "grade")
    builder.add_edge("expand_query", "retrieve")
    builder.add_edge("retrieve", "grade")
    return builder.compile(checkpointer=checkpointer, name="agentic-rag")
