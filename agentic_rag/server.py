"""The graph as served by the LangGraph server (``langgraph dev``, LangGraph Studio).

No checkpointer is compiled in: the server supplies persistence. Settings come from the
environment and from a ``.env`` file in the folder the server is started in (variables already
set win; see :func:`core.settings.load_env_file`); run settings are the ``context`` form in
Studio (:class:`graph.context.RunContext`).

``app`` is the server's HTTP app (``langgraph.json``: ``http.app``) for its lifespan only: when
the server stops, the embedded PostgreSQL this process started is stopped too (unless another
process still uses it) — uvicorn ends the process by re-raising the stop signal, so pgserver's
own ``atexit`` hook never runs.

``langgraph.json`` has no ``"env"`` key: for ``langgraph dev`` it would let the file override
variables already set (and unset a ``KEY`` line without ``=``), and ``langgraph up`` would
require the file to exist.
"""

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path

from starlette.applications import Starlette

from agentic_rag.app import Services
from core.settings import Settings, load_env_file
from graph.builder import build_graph
from nodes import make_nodes
from store.embedded import release_embedded_postgres

load_env_file(Path.cwd() / ".env")  # langgraph dev runs from the folder of langgraph.json
services = Services(Settings())
"""What the served graph's nodes use (its settings read after the ``.env`` file)."""
graph = build_graph(make_nodes(services))


@asynccontextmanager
async def lifespan(_app: Starlette):
    yield
    await asyncio.to_thread(services.close)  # blocking calls, off the event loop
    await asyncio.to_thread(release_embedded_postgres)


app = Starlette(lifespan=lifespan)
"""Merged by the LangGraph server into its own app (no routes: the lifespan above)."""
