"""Graph nodes, one module per node. Each module's ``make_node(services)`` returns a function
``(state, runtime) -> partial state update`` that never mutates the state it is given;
:func:`make_nodes` builds them all for :func:`graph.builder.build_graph`."""

from __future__ import annotations

from typing import Callable

from graph.services import GraphServices
from nodes import (
    check_grounding,
    decompose,
    expand_query,
    follow_links,
    generate,
    grade,
    reformulate,
    retrieve,
    review_answer,
    review_route,
    review_stop,
    route,
)


def make_nodes(services: GraphServices) -> dict[str, Callable]:
    """Every node of the graph, bound to ``services``."""
    return {
        "route": route.make_node(services),
        "review_route": review_route.review_route,
        "decompose": decompose.make_decompose(services),
        "search_subquestion": decompose.make_search(services),
        "merge_subquestions": decompose.merge_subquestions,
        "expand_query": expand_query.make_node(services),
        "retrieve": retrieve.make_node(services),
        "grade": grade.make_node(services),
        "follow_links": follow_links.make_node(services),
        "reformulate": reformulate.make_node(services),
        "review_stop": review_stop.review_stop,
        "generate": generate.make_node(services),
        "check_grounding": check_grounding.make_node(services),
        "review_answer": review_answer.review_answer,
    }
