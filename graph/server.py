"""The graph as served by the LangGraph server (``langgraph dev``, LangGraph Studio).

No checkpointer is compiled in: the server supplies persistence. Settings come from the
environment (``.env`` is read by ``langgraph dev``); run settings are the ``context`` form in
Studio (:class:`graph.config.RunContext`).
"""

from agentic_rag.app import Services
from graph.builder import build_graph
from graph.config import Settings

graph = build_graph(Services(Settings()))
