"""``agentic-rag mcp``: the app as a Model Context Protocol server, built with the official ``mcp``
SDK (``MCPServer``, the SDK 2.x name of FastMCP), over stdio or streamable HTTP on 127.0.0.1.

Tools: ``ask`` (:meth:`App.ask`: a question on a thread, with run settings), ``search`` (hybrid
search of the collection, chunks with provenance) and ``ingest`` (:meth:`App.ingest`; refused
unless the server was started with ``--allow-ingest`` or ``AGENTIC_RAG_MCP_INGEST=true``, as it
reads and writes local files). Resources: ``agentic-rag://collections`` (every collection) and
``agentic-rag://collections/{name}`` (one, with its sources). One :class:`App` serves every
request, one call at a time, in a worker thread (the event loop stays free). A user error
(:class:`core.errors.AgenticRagError`) reaches the client as its one-line message. The command
that starts it is :func:`agentic_rag.mcp_cli.mcp` (this module is imported when it runs).
"""

from __future__ import annotations

import json
from functools import partial
from importlib.metadata import version
from pathlib import Path
from typing import Annotated, Any, Callable, Optional

import anyio
from pydantic import BaseModel, Field

from core.errors import AgenticRagError, CollectionNotFoundError
from core.settings import Settings
from graph.context import RunContext

INGEST_OFF = (
    "ingest is off on this MCP server (it reads and writes local files): start it with "
    "`agentic-rag mcp --allow-ingest`, or set AGENTIC_RAG_MCP_INGEST=true"
)


class AskResult(BaseModel):
    """The answer to one question (see :meth:`agentic_rag.app.App.result`)."""

    thread_id: str
    status: str = Field(description="done; interrupted (a review is waiting: agentic-rag resume); unfinished")
    answer: str | None = None
    short_answer: str | None = None
    abstained: bool = False
    confidence: float | None = Field(default=None, description="0–1, calibrated; 0.7 and above: trust it")
    stop_reason: str | None = None
    citations: list[dict[str, Any]] = Field(default_factory=list, description="with source, locator, title, …")
    hops: int = 0
    notes: list[str] = Field(default_factory=list)


class SearchResult(BaseModel):
    """Chunks best first: ``chunk_id``, ``text``, ``title``, ``source``, ``locator``, ``version``,
    ``ingested_at``, ``score`` (0–1 relevance)."""

    chunks: list[dict[str, Any]]


class IngestResult(BaseModel):
    """What an ingest changed (see :class:`ingest.pipeline.IngestReport`)."""

    collection: str
    files: int
    unchanged: int
    added: int
    removed: int
    deleted_files: int
    skipped: list[list[str]] = Field(description="(path, reason) of files that could not be read")
    chunks: int = Field(description="chunks in the collection afterwards")


class _Shared:
    """The one :class:`App` of the server, opened on first use, and the limiter that lets one
    call at a time use it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app: Any = None
        self.limiter = anyio.CapacityLimiter(1)

    async def run(self, work: Callable[[Any], Any], error: type[Exception]) -> Any:
        """``work(app)`` in a worker thread; a user error becomes ``error`` (the SDK's ``ToolError``
        or ``ResourceError``) with its message."""

        def call() -> Any:
            if self.app is None:
                from agentic_rag.app import App  # heavy imports once the server is up

                self.app = App(self.settings)
            return work(self.app)

        try:
            return await anyio.to_thread.run_sync(call, limiter=self.limiter)
        except AgenticRagError as exc:
            raise error(str(exc)) from None

    def close(self) -> None:
        if self.app is not None:
            self.app.close()


def _ask(app: Any, question: str, thread_id: str | None, settings: dict | None) -> AskResult:
    """Ask on the server's collection.

    Raises:
        ThreadError: ``thread_id`` was asked on another collection (this server cannot continue it).
    """
    from agentic_rag.threads import require_collection

    if thread_id:
        snapshot = app.graph.get_state({"configurable": {"thread_id": thread_id}})
        advice = (
            "omit thread_id to start a new thread, or continue it with a server started with --collection {asked_on}"
        )
        require_collection(thread_id, snapshot, app.settings.collection, advice)
    result = app.ask(question, thread_id=thread_id, context=RunContext.from_mapping(settings))
    return AskResult.model_validate({k: v for k, v in result.items() if k in AskResult.model_fields})


def _search(app: Any, query: str, k: int, sources: list[str] | None, filters: dict | None) -> SearchResult:
    where = app.services.chunk_filter(RunContext(sources=sources, filters=filters))
    return SearchResult(chunks=app.services.search(query, k, where))


def _ingest(app: Any, paths: list[str], exclude: list[str]) -> IngestResult:
    report = app.ingest([Path(p).expanduser() for p in paths], exclude=exclude)
    counts = {k: getattr(report, k) for k in ("files", "unchanged", "added", "removed", "deleted_files")}
    skipped = [list(item) for item in report.skipped]
    return IngestResult(
        collection=app.settings.collection, skipped=skipped, chunks=app.services.store.count(), **counts
    )


def _collections(app: Any, name: str | None = None) -> str:
    """JSON of every collection (name, embedding model and dimension, number of sources), or of
    collection ``name`` with its source keys."""
    from store.catalog import Catalog  # psycopg: imported by the commands that use the store only
    from store.connection import connect

    with connect(app.services.database_url) as conn:
        Catalog(conn, app.settings.collection).create()  # a fresh database has no catalog yet
        names = Catalog(conn, "").collections()
        if name is not None and name not in names:
            raise CollectionNotFoundError(f"no collection '{name}' (existing: {', '.join(names) or 'none'})")
        rows = []
        for collection in [name] if name else names:
            catalog = Catalog(conn, collection)
            model, dimension = catalog.embedding() or (None, None)
            sources = catalog.sources_under("")
            row = {"name": collection, "embedding": model, "dimension": dimension, "sources": len(sources)}
            rows.append({**row, "source_keys": sources} if name else row)
    return json.dumps(rows[0] if name else {"current": app.settings.collection, "collections": rows})


def build_server(settings: Settings, allow_ingest: bool = False) -> tuple[Any, _Shared]:
    """The ``MCPServer`` over an app on ``settings`` (opened on the first call; close it with the
    returned handle's ``close()``). ``allow_ingest`` (or ``settings.mcp_ingest``) enables ``ingest``."""
    from mcp.server.mcpserver import MCPServer  # the SDK takes a second to import: not for other commands
    from mcp.server.mcpserver.exceptions import ResourceError, ToolError

    shared = _Shared(settings)
    ingest_on = allow_ingest or settings.mcp_ingest
    server = MCPServer(
        "agentic-rag",
        version=version("agentic-rag"),
        instructions="Answers questions from the ingested documents with citations, or says they do not hold the "
        "answer. Use `ask` for answers, `search` for raw passages.",
    )

    @server.tool()
    async def ask(
        question: Annotated[str, Field(min_length=1, description="The question.")],
        thread_id: Annotated[
            Optional[str], Field(description="Continue this conversation (new one if omitted).")
        ] = None,
        run_settings: Annotated[
            Optional[dict[str, Any]],
            Field(
                description="Run settings (RunContext): deciders (auto|llm|rules), max_retries (0-3), max_evidence, "
                "retrieve_k, time_limit_s, graph_hop, adaptive, decompose, expansion, sources, filters, min_relevance"
            ),
        ] = None,
    ) -> AskResult:
        """Answer a question from the ingested documents: the answer with [n] citations (source,
        locator, title), a short answer, confidence, and why the search stopped."""
        return await shared.run(lambda app: _ask(app, question, thread_id, run_settings), ToolError)

    @server.tool()
    async def search(
        query: Annotated[str, Field(min_length=1, description="Search text.")],
        k: Annotated[int, Field(ge=1, le=50, description="How many chunks.")] = 5,
        sources: Annotated[Optional[list[str]], Field(description="Glob patterns over sources.")] = None,
        filters: Annotated[
            Optional[dict[str, Any]], Field(description="source, title, chunk_index or version → value or list")
        ] = None,
    ) -> SearchResult:
        """Hybrid (BM25 + dense) search of the collection: the k best chunks with their provenance."""
        return await shared.run(lambda app: _search(app, query, k, sources, filters), ToolError)

    @server.tool()
    async def ingest(
        paths: Annotated[list[str], Field(min_length=1, description="Files or folders on the server's machine.")],
        exclude: Annotated[list[str], Field(description="gitignore-style patterns to leave out.")] = [],  # noqa: B006
    ) -> IngestResult:
        """Ingest files and folders into the collection (off unless the server allows it)."""
        if not ingest_on:
            raise ToolError(INGEST_OFF)
        return await shared.run(lambda app: _ingest(app, paths, exclude), ToolError)

    @server.resource("agentic-rag://collections", mime_type="application/json")
    async def collections() -> str:
        """Every collection: name, embedding model, number of sources; and the one served."""
        return await shared.run(_collections, ResourceError)

    @server.resource("agentic-rag://collections/{name}", mime_type="application/json")
    async def collection(name: str) -> str:
        """One collection with the keys of its sources."""
        return await shared.run(partial(_collections, name=name), ResourceError)

    return server, shared
