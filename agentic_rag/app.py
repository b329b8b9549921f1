"""Wiring: settings → store, models, deciders, checkpointer and graph; the operations the CLI
and Python callers use (ingest, ask, resume)."""

from __future__ import annotations

import sqlite3
import uuid
from functools import cached_property
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.sqlite import SqliteSaver

from agentic_rag.errors import CollectionNotFoundError, ConfigurationError, ThreadError
from deciders.base import Deciders
from deciders.llm import LLMGenerator, LLMGrader, LLMReformulator, LLMRouter
from deciders.rules import (
    ExtractiveGenerator,
    FeedbackReformulator,
    LexicalGrader,
    RuleRouter,
)
from graph.builder import build_graph
from graph.config import RunContext, Settings
from graph.control import validate_question
from ingest.loaders import Source
from ingest.pipeline import IngestReport, collect_files, ingest_files, store_sources
from providers.chat import load_chat_model
from providers.embeddings import EmbeddingModel, load_embedding_model
from store.chunks import Chunk, ChunkStore
from store.embedded import embedded_postgres_url

_FROM_SETTINGS: Any = object()


class Services:
    """The retriever and deciders the graph's nodes use (implements ``GraphServices``).

    The store and models are opened lazily, on first use, so importing or compiling the graph
    starts nothing.

    Args:
        settings: where the data lives and which models to use.
        chat_model: a chat model for the LLM deciders, overriding ``settings`` (tests pass a
            scripted fake); ``None`` means model-free only.
    """

    def __init__(self, settings: Settings, chat_model: BaseChatModel | None = _FROM_SETTINGS) -> None:
        self.settings = settings
        if chat_model is not _FROM_SETTINGS:
            self.__dict__["chat_model"] = chat_model
        self._deciders: dict[tuple, Deciders] = {}
        self._has_chunks = False

    @cached_property
    def database_url(self) -> str:
        return self.settings.database_url or embedded_postgres_url(self.settings.data_dir)

    @cached_property
    def embedding(self) -> EmbeddingModel:
        return load_embedding_model(self.settings.embedding)

    @cached_property
    def store(self) -> ChunkStore:
        """The collection, which must exist (see :meth:`writable_store`)."""
        return ChunkStore.open(self.database_url, self.settings.collection, self.embedding, create=False)

    def writable_store(self) -> ChunkStore:
        """The collection, created when missing (for ingestion)."""
        if "store" not in self.__dict__:
            self.__dict__["store"] = ChunkStore.open(self.database_url, self.settings.collection, self.embedding)
        return self.store

    @cached_property
    def chat_model(self) -> BaseChatModel | None:
        return load_chat_model(self.settings)

    def search(self, query: str, k: int) -> list[Chunk]:
        """Hybrid search of the collection.

        Raises:
            CollectionNotFoundError: the collection does not exist or holds no chunks.
        """
        if not self._has_chunks:
            self._has_chunks = self.store.count() > 0
            if not self._has_chunks:
                raise CollectionNotFoundError(
                    f"collection '{self.settings.collection}' holds no chunks; "
                    f"ingest documents first: agentic-rag ingest PATH --collection {self.settings.collection}"
                )
        return self.store.search(query, k)

    def describe_source(self, chunk: Chunk) -> str:
        return chunk["source"]

    def deciders(self, context: RunContext) -> Deciders:
        mode = context.deciders
        if mode == "llm" and self.chat_model is None:
            raise ConfigurationError(
                "deciders=llm needs a chat model: set OPENAI_API_KEY or AGENTIC_RAG_CHAT_MODEL, or use deciders=rules"
            )
        use_llm = mode == "llm" or (mode == "auto" and self.chat_model is not None)
        key = ("llm",) if use_llm else ("rules", context.min_relevance)
        if key not in self._deciders:
            if use_llm:
                model = self.chat_model
                self._deciders[key] = Deciders(
                    LLMRouter(model), LLMGrader(model), LLMReformulator(model), LLMGenerator(model)
                )
            else:
                self._deciders[key] = Deciders(
                    RuleRouter(), LexicalGrader(context.min_relevance), FeedbackReformulator(), ExtractiveGenerator()
                )
        return self._deciders[key]

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()


def open_checkpointer(path: Path) -> SqliteSaver:
    """The SQLite checkpointer (langgraph-checkpoint-sqlite) at ``path``, created if missing."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))


class App:
    """The application: ingest documents, ask questions on threads, resume threads.

    Every run is checkpointed in SQLite (``settings.checkpoint_path``) under its thread id, with
    synchronous checkpoint writes so that a crash loses no finished step.
    """

    def __init__(self, settings: Settings | None = None, chat_model: BaseChatModel | None = _FROM_SETTINGS) -> None:
        self.settings = settings or Settings()
        self.services = Services(self.settings, chat_model)
        self.checkpointer = open_checkpointer(self.settings.checkpoint_path)
        self.graph = build_graph(self.services, self.checkpointer)

    # -- documents --------------------------------------------------------------------------

    def ingest(self, paths: list[Path], progress: bool = False) -> IngestReport:
        """Ingest files and folders into the collection, creating it when missing (see
        :func:`ingest_files`). Paths are checked before anything is written.

        Raises:
            IngestError: a path does not exist, or no supported file was found.
        """
        files = collect_files(paths)
        store = self.services.writable_store()
        return ingest_files(store, paths, files, self.settings.chunk_size, self.settings.chunk_overlap, progress)

    def ingest_sources(self, sources: list[Source]) -> IngestReport:
        """Ingest already-chunked sources (built-in corpora)."""
        report = IngestReport()
        store_sources(self.services.writable_store(), sources, report)
        return report

    # -- questions --------------------------------------------------------------------------

    def _config(self, thread_id: str, context: RunContext) -> dict:
        return {"configurable": {"thread_id": thread_id}, "recursion_limit": context.step_bound() + 5}

    def ask(self, question: str, thread_id: str | None = None, context: RunContext | None = None) -> dict:
        """Answer ``question`` on a thread (a new one when ``thread_id`` is ``None``).

        Returns:
            The output state (``answer``, ``citations``, ``route``, ``stop_reason``, ``hops``,
            ``retries``, ``trace``, ``notes``) plus ``thread_id``.

        Raises:
            InvalidQuestionError: empty or overlong question; nothing is written.
            StoreUnavailableError, EmbeddingMismatchError, ConfigurationError: see their docs.
        """
        context = context or RunContext()
        question = validate_question(question, context.max_question_chars)
        thread_id = thread_id or uuid.uuid4().hex
        self.services.deciders(context)  # fail on a bad decider setting before writing anything
        result = self.graph.invoke(
            {"question": question}, self._config(thread_id, context), context=context, durability="sync"
        )
        return {"thread_id": thread_id, **result}

    def resume(self, thread_id: str) -> dict:
        """Continue a thread whose last run was interrupted (killed, crashed) to completion, with
        the run settings it started with.

        Raises:
            ThreadError: unknown thread, or its last run finished (nothing to resume).
        """
        config = {"configurable": {"thread_id": thread_id}}
        snapshot = self.graph.get_state(config)
        if not snapshot.values:
            raise ThreadError(f"no thread '{thread_id}' in {self.settings.checkpoint_path}")
        if not snapshot.next:
            raise ThreadError(
                f"thread '{thread_id}' has nothing to resume: its last run finished; "
                f"ask a new question with --thread {thread_id}"
            )
        context = RunContext.from_mapping(snapshot.values.get("run_context"))
        result = self.graph.invoke(None, self._config(thread_id, context), context=context, durability="sync")
        return {"thread_id": thread_id, **result}

    def close(self) -> None:
        self.services.close()
        self.checkpointer.conn.close()
