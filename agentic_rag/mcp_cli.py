"""``agentic-rag mcp``: the command that serves :mod:`agentic_rag.mcp_server`. Kept apart from the
server so that importing the command line (``--help``, every other command) imports neither the
server's pydantic models and anyio nor telemetry (LangChain, LangSmith) nor the MCP SDK."""

from __future__ import annotations

import os
import signal
import sys
from functools import partial
from typing import Annotated, Any

import typer

from agentic_rag.options import Collection, DataDir, Embedding, settings_from

DEFAULT_PORT = 8765
"""Port of ``agentic-rag mcp --http`` (endpoint ``http://127.0.0.1:8765/mcp``)."""


def mcp(
    http: Annotated[bool, typer.Option("--http", help="Streamable HTTP on 127.0.0.1 instead of stdio.")] = False,
    port: Annotated[int, typer.Option(help="Port of --http.")] = DEFAULT_PORT,
    allow_ingest: Annotated[
        bool, typer.Option("--allow-ingest", help="Enable the ingest tool (env AGENTIC_RAG_MCP_INGEST).")
    ] = False,
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
) -> None:
    """Serve ask, search and ingest over the Model Context Protocol (stdio, or --http at
    http://127.0.0.1:PORT/mcp)."""
    from agentic_rag.mcp_server import build_server
    from core.telemetry_export import configure_telemetry

    settings = settings_from(data_dir, collection, embedding)
    configure_telemetry(settings)  # before the first request, so its tools/call span is exported too
    server, shared = build_server(settings, allow_ingest)
    try:
        if http:
            typer.echo(f"MCP endpoint: http://127.0.0.1:{port}/mcp", err=True)
            server.run("streamable-http", host="127.0.0.1", port=port)
        else:
            # the stdio transport waits for stdin in a worker thread that a signal cannot stop:
            # Ctrl-C and SIGTERM release the app (and the embedded server) and end the process
            for signum in (signal.SIGINT, signal.SIGTERM):
                signal.signal(signum, partial(_stop, shared))
            server.run("stdio")
    finally:
        shared.close()


def _stop(shared: Any, signum: int, _frame: Any) -> None:
    """Signal handler of the stdio server: close the app, say why, exit with 128 + the signal."""
    shared.close()
    sys.stderr.write(f"agentic-rag mcp: stopped ({signal.Signals(signum).name})\n")
    sys.stderr.flush()
    os._exit(128 + signum)
