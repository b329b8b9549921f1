"""The graph as served by the LangGraph server (``langgraph dev``, LangGraph Studio).

No checkpointer is compiled in: the server supplies persistence. Settings come from the
environment; run settings are the ``context`` form in Studio (:class:`graph.context.RunContext`).
"""

from agentic_rag.app import Services
from core.settings import Settings
from graph.builder import build_graph
from nodes import make_nodes

graph = build_graph(make_nodes(Services(Settings())))
