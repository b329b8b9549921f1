"""Wiring: settings → store, models, deciders, checkpointer and graph; the operations the CLI
and Python callers use (ingest, ask, resume)."""

from __future__ import annotations

import os
import uuid
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Sequence

from langchain_core.language_models import BaseChatModel
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command
from pydantic import ValidationError

from agentic_rag.checkpoints import checkpoint_location, close_checkpointer, open_async_checkpointer, open_checkpointer
from agentic_rag.services import FROM_SETTINGS, Services
from agentic_rag.threads import ReplayEdit, history_rows, require_collection, require_latest, status_of, thread_rows
from core import telemetry
from core.errors import CollectionNotFoundError, InvalidAnswerError, ThreadError, describe_validation, unknown_thread
from core.settings import Settings
from graph.builder import build_graph
from graph.context import RunContext, question_input, validate_question
from graph.interrupts import InvalidResumeError, parse_decision
from graph.state import OutputState
from nodes import make_nodes

if TYPE_CHECKING:  # the ingest pipeline (with SQLAlchemy and pathspec) is imported only to ingest
    from ingest.loaders import Source
    from ingest.pipeline import IngestReport

OnEvent = Callable[[str, Any], None]
"""Receives ``(mode, data)`` while a run streams: ``("custom", {"node": name, **hop trace
entry})`` per hop step as it happens, ``("messages", (message, metadata))`` for each message the
turn adds to the conversation: the question (``HumanMessage``, from ``route``), then the final
answer (``AIMessage``), once — never a decider's reply, a draft the grounding check rejected or one
a review replaced (see :mod:`nodes.generate`)."""

NO_ANSWER: Any = object()
"""Marker for "no resume value given" (``None`` is a valid JSON answer)."""


class App:
    """The application: ingest documents, ask questions on threads, resume threads.

    Every run is checkpointed under its thread id — in SQLite (``settings.checkpoint_path``), or
    with ``DATABASE_URL`` in that PostgreSQL (:mod:`agentic_rag.checkpoints`) — with
    synchronous checkpoint writes so that a crash loses no finished step.
    """

    def __init__(self, settings: Settings | None = None, chat_model: BaseChatModel | None = FROM_SETTINGS) -> None:
        self.settings = settings or Settings()
        self.services = Services(self.settings, chat_model)
        self.checkpointer = open_checkpointer(self.settings)
        self.graph = build_graph(make_nodes(self.services), self.checkpointer)

    @asynccontextmanager
    async def async_graph(self) -> AsyncIterator[CompiledStateGraph]:
        """The graph for callers on an event loop (an async web server: ``ainvoke``, ``astream``,
        ``aget_state``), checkpointed by the async saver over the same checkpoints as :attr:`graph`,
        so threads are shared with the sync API; pass ``durability="sync"`` for :meth:`ask`'s
        crash guarantee. Its nodes run in LangGraph's worker threads. Closed on exit.

        Yields:
            The compiled graph; input :func:`graph.context.question_input`, run settings as
            ``context``, thread id in ``config["configurable"]["thread_id"]``.
        """
        async with open_async_checkpointer(self.settings) as saver:
            yield build_graph(make_nodes(self.services), saver)

    # -- documents --------------------------------------------------------------------------

    def ingest(
        self, paths: list[Path], progress: bool = False, exclude: Sequence[str] = (), log: Callable | None = None
    ) -> IngestReport:
        """Ingest files and folders into the collection, creating it when missing (see
        :func:`ingest_files`). Paths are checked before anything is written.

        Args:
            paths: files and folders; a folder is mirrored (sources from under it that it no
                longer gives are deleted, excluded ones included).
            progress: show progress bars.
            exclude: gitignore-style patterns (pathspec) of files to leave out under each folder,
                relative to it (``_sources/*``, ``*.txt``), applied after the folder's
                ``.ragignore``; files named directly are never excluded.
            log: without ``progress``, receives a one-line progress report every few seconds.

        Returns:
            The :class:`IngestReport` totals (``interrupted`` after Ctrl-C: what was written is
            kept; the same ingest again continues; ``discarded``: a collection this ingest
            created holds no chunk, e.g. no file could be read, and was dropped again).

        Raises:
            IngestError: a path does not exist, a pattern is invalid, or no supported file was
                found (in a folder never ingested before: an emptied one has its sources deleted).
        """
        from ingest.pipeline import collect_files, ingest_files

        files = collect_files(paths, self._ingested_under, exclude)
        store = self.services.writable_store()
        new, store.created = store.created, False  # the ingest that created the collection, not a later one
        report = ingest_files(store, paths, files, self.settings.chunk_size, self.settings.chunk_overlap, progress, log)
        self.services.collection_changed()
        if new and not store.count():  # an empty collection would only be listed as existing
            store.drop()
            store.close()
            del self.services.store
            report.discarded = True
        return report

    def _ingested_under(self, folder: Path) -> bool:
        """Whether the collection exists and holds sources from under ``folder``."""
        try:
            return bool(self.services.store.catalog.sources_under(f"{folder}{os.sep}"))
        except CollectionNotFoundError:
            return False

    def ingest_sources(self, sources: list[Source]) -> IngestReport:
        """Ingest already-chunked sources (built-in corpora)."""
        from ingest.pipeline import IngestReport, store_sources

        report = IngestReport()
        store_sources(self.services.writable_store(), sources, report)
        self.services.collection_changed()
        return report

    # -- questions --------------------------------------------------------------------------

    def _config(self, thread_id: str, context: RunContext, checkpoint_id: str | None = None) -> dict:
        configurable = {"thread_id": thread_id, **({"checkpoint_id": checkpoint_id} if checkpoint_id else {})}
        metadata = {"collection": self.settings.collection}  # in every checkpoint: the thread's collection
        return {"configurable": configurable, "metadata": metadata, "recursion_limit": context.step_bound() + 5}

    def _check_collection(self, thread_id: str, snapshot: Any) -> None:
        require_collection(thread_id, snapshot, self.settings.collection)

    def _run(
        self,
        graph_input: Any,
        thread_id: str,
        context: RunContext,
        checkpoint_id: str | None = None,
        callbacks: list | None = None,
        on_event: OnEvent | None = None,
    ) -> dict:
        config = self._config(thread_id, context, checkpoint_id)
        if callbacks:
            config["callbacks"] = callbacks
        with telemetry.question(thread_id) as span:  # the trace's root span (off: a no-op)
            if on_event is None:
                self.graph.invoke(graph_input, config, context=context, durability="sync")
            else:
                modes = ["custom", "messages"]
                for mode, data in self.graph.stream(
                    graph_input, config, context=context, durability="sync", stream_mode=modes
                ):
                    on_event(mode, data)
            return span.finish(self.result(thread_id))

    def result(self, thread_id: str, snapshot: Any = None) -> dict:
        """The thread's latest state as a result.

        Returns:
            The output fields (``question``, ``standalone_question``, ``answer``, ``citations``,
            ``route``, ``stop_reason``, ``hops``, ``retries``, ``trace``, ``notes``, ``reviewed``)
            plus ``thread_id``, ``status`` (``done``; ``interrupted``: paused for a review;
            ``unfinished``: stopped mid-run by Ctrl-C, a crash or an error, ``resume`` finishes it) and
            ``interrupt`` (the pending review payload, or ``None``).
        """
        snapshot = snapshot or self.graph.get_state({"configurable": {"thread_id": thread_id}})
        values = {k: v for k, v in snapshot.values.items() if k in OutputState.__annotations__}
        interrupt = snapshot.interrupts[0].value if snapshot.interrupts else None
        return {"thread_id": thread_id, "status": status_of(snapshot), "interrupt": interrupt, **values}

    def ask(
        self,
        question: str,
        thread_id: str | None = None,
        context: RunContext | None = None,
        callbacks: list | None = None,
        on_event: OnEvent | None = None,
    ) -> dict:
        """Answer ``question`` on a thread (a new one when ``thread_id`` is ``None``);
        ``callbacks`` are LangChain callback handlers for the run (e.g. token counting);
        ``on_event`` streams the run's progress (:data:`OnEvent`). The thread records the
        collection it is asked on; a new thread whose run fails on a missing collection is deleted.

        The question's first checkpoint holds ``context``, so a run killed at any point
        resumes under it.

        Returns:
            See :meth:`result`; ``status`` is ``interrupted`` when a review switched on in
            ``context`` is waiting for an answer (continue with :meth:`resume`).

        Raises:
            InvalidQuestionError: empty or overlong question; nothing is written.
            ThreadError: ``thread_id`` is waiting for a review to be answered, or was asked on
                another collection; nothing is written.
            ConfigurationError: see :meth:`Services.check_run`.
            StoreUnavailableError, EmbeddingMismatchError, CollectionNotFoundError: see their docs.
        """
        context = context or RunContext()
        question = validate_question(question, context.max_question_chars)
        snapshot = self.graph.get_state({"configurable": {"thread_id": thread_id or ""}})
        if snapshot.values:
            self._check_collection(thread_id, snapshot)
            pending = snapshot.interrupts
            if pending:  # a new question would silently drop the review and keep the unapproved draft
                raise ThreadError(
                    f"thread '{thread_id}' is waiting for an answer to its {pending[0].value['kind']} review; "
                    f"answer it first: agentic-rag resume {thread_id} --answer VALUE, where VALUE is "
                    f"{pending[0].value['accepts']}"
                )
        thread_id = thread_id or uuid.uuid4().hex
        self.services.check_run(context)  # fail on bad deciders or filters before writing anything
        try:
            return self._run(
                question_input(question, context), thread_id, context, callbacks=callbacks, on_event=on_event
            )
        except CollectionNotFoundError:
            if not snapshot.values:  # nothing to resume on this collection: leave no unfinished thread
                self.checkpointer.delete_thread(thread_id)
            raise

    def has_thread(self, thread_id: str) -> bool:
        """Whether any checkpoint of ``thread_id`` exists.

        Raises:
            ThreadError: the thread was asked on another collection than this app's.
        """
        snapshot = self.graph.get_state({"configurable": {"thread_id": thread_id}})
        self._check_collection(thread_id, snapshot)
        return bool(snapshot.values)

    def _snapshot(self, thread_id: str):
        snapshot = self.graph.get_state({"configurable": {"thread_id": thread_id}})
        if not snapshot.values:
            known = [row["thread_id"] for row in self.threads(limit=200)]
            raise unknown_thread(thread_id, known, checkpoint_location(self.settings))
        return snapshot

    def resume(self, thread_id: str, answer: Any = NO_ANSWER, checkpoint_id: str | None = None) -> dict:
        """Continue a thread: answer its pending review, or finish a run that was killed.

        Args:
            thread_id: the thread.
            answer: the resume value for a pending review (see :mod:`graph.interrupts`).
            checkpoint_id: optional; must be the thread's latest checkpoint (resuming from the
                thread id alone is the same). To continue from an earlier one, use :meth:`replay`.

        Returns:
            See :meth:`result`.

        Raises:
            ThreadError: unknown thread, nothing to resume, an answer missing or not expected,
                a checkpoint id that is not the latest, or a thread asked on another collection.
            CollectionNotFoundError: the collection (``--collection``) holds no chunks; the
                thread is unchanged.
            InvalidAnswerError: the review did not accept ``answer``; the thread is unchanged
                and still waiting.
        """
        snapshot = self._snapshot(thread_id)
        self._check_collection(thread_id, snapshot)
        if checkpoint_id is not None:
            require_latest(self.checkpointer, snapshot, thread_id, checkpoint_id)
        context = RunContext.from_mapping(snapshot.values.get("run_context"))
        if snapshot.values.get("route") != "direct":  # before the review is used up, not half-way
            self.services.require_chunks()
        if snapshot.interrupts:
            pending = snapshot.interrupts[0].value
            if answer is NO_ANSWER:
                raise ThreadError(
                    f"thread '{thread_id}' is waiting for an answer to its {pending['kind']} review; "
                    f"resume it with --answer VALUE, where VALUE is {pending['accepts']}"
                )
            try:
                parse_decision(pending["kind"], answer)
            except InvalidResumeError as exc:
                raise InvalidAnswerError(str(exc)) from None
            result = self._run(Command(resume=answer), thread_id, context)
            if result["interrupt"] and result["interrupt"].get("error"):
                raise InvalidAnswerError(f"{result['interrupt']['error']}; the thread is still waiting")
            return result
        if not snapshot.next:
            raise ThreadError(
                f"thread '{thread_id}' has nothing to resume: its last run finished; "
                f"ask a new question with --thread {thread_id}"
            )
        if answer is not NO_ANSWER:
            raise ThreadError(f"thread '{thread_id}' is not waiting for an answer; resume it without --answer")
        return self._run(None, thread_id, context)

    def threads(self, limit: int = 20, status: str | None = None, collection: str | None = None) -> list[dict]:
        """The ``limit`` most recently updated threads, newest first, only those with ``status``
        and asked on ``collection`` when given: ``thread_id``, ``question``, ``status`` (done,
        interrupted, unfinished), ``collection``, ``stop_reason``, ``updated_at``."""
        return thread_rows(self.graph, self.checkpointer, limit, status, collection)

    def history(self, thread_id: str) -> list[dict]:
        """Every checkpoint of the thread, oldest first: ``checkpoint_id``, ``step``, ``node``
        (the node whose writes it holds), ``created_at``, ``route``, ``query``, ``evidence``
        (chunk ids), ``retries``, ``hops``, ``stop_reason``, ``next`` (nodes still to run).

        Raises:
            ThreadError: unknown thread, or one asked on another collection than this app's.
        """
        self._check_collection(thread_id, self._snapshot(thread_id))
        return history_rows(self.graph, thread_id)

    def replay(self, thread_id: str, checkpoint_id: str, updates: dict | None = None) -> dict:
        """Time travel: continue the thread from an earlier checkpoint, optionally with edited
        state (LangGraph ``update_state``). The thread's history forks there; the original
        branch stays in the history.

        Args:
            thread_id: the thread.
            checkpoint_id: a checkpoint from :meth:`history` that still has nodes to run.
            updates: state fields to overwrite first (:class:`ReplayEdit`: ``query``, ``retries``,
                ``route``), e.g. ``{"query": "…"}``.

        Raises:
            ThreadError: unknown thread or checkpoint, a checkpoint with nothing left to run, or
                an edit of another field or with an invalid value.
        """
        self._check_collection(thread_id, self._snapshot(thread_id))
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
        snapshot = self.graph.get_state(config)
        if snapshot.created_at is None:
            raise ThreadError(f"thread '{thread_id}' has no checkpoint {checkpoint_id}; see: agentic-rag history")
        if not snapshot.next:
            raise ThreadError(f"checkpoint {checkpoint_id} is the end of a run: nothing to continue from it")
        context = RunContext.from_mapping(snapshot.values.get("run_context"))
        if updates:
            try:
                edit = ReplayEdit.model_validate(updates).model_dump(exclude_none=True)
            except ValidationError as exc:
                raise ThreadError(
                    f"cannot edit the state that way ({describe_validation(exc)}); editable: query, retries, route"
                ) from None
            if "query" in edit:
                edit["hop_queries"] = [edit["query"]]
            config = self.graph.update_state(config, edit)
            checkpoint_id = config["configurable"]["checkpoint_id"]
        return self._run(None, thread_id, context, checkpoint_id)

    def close(self) -> None:
        self.services.close()
        close_checkpointer(self.checkpointer)
