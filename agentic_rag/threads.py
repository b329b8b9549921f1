"""The checkpointed threads: status, the recent-threads list, a thread's checkpoint history, the
collection a thread was asked on, the state fields a replay may edit, and pruning old threads."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph
from pydantic import BaseModel, ConfigDict, Field

from core.errors import ThreadError
from graph.context import MAX_RETRIES_LIMIT


def status_of(snapshot: Any) -> str:
    """``interrupted`` (paused for a review), ``unfinished`` (stopped mid-run: Ctrl-C, a crash or
    an error) or ``done``."""
    return "interrupted" if snapshot.interrupts else ("unfinished" if snapshot.next else "done")


def collection_of(snapshot: Any) -> str | None:
    """The collection the thread's latest run was asked on (checkpoint metadata ``collection``,
    written by :meth:`agentic_rag.app.App.ask`), or ``None`` for threads written before it was."""
    return (snapshot.metadata or {}).get("collection")


CLI_ADVICE = "use --collection {asked_on} (or leave --collection out)"


def require_collection(thread_id: str, snapshot: Any, collection: str, advice: str = CLI_ADVICE) -> None:
    """Check a thread is continued on the collection it was asked on.

    Args:
        advice: what the caller can do, formatted with ``asked_on`` (default: the CLI's flags).

    Raises:
        ThreadError: it was asked on another collection (naming it).
    """
    asked_on = collection_of(snapshot)
    if asked_on not in (None, collection):
        raise ThreadError(
            f"thread '{thread_id}' was asked on collection '{asked_on}', not '{collection}'; "
            + advice.format(asked_on=asked_on)
        )


def thread_rows(
    graph: CompiledStateGraph,
    checkpointer: BaseCheckpointSaver,
    limit: int,
    status: str | None = None,
    collection: str | None = None,
) -> list[dict]:
    """The ``limit`` most recently updated threads, newest first, only those with ``status`` and
    asked on ``collection`` when given: ``thread_id``, ``question``, ``status``, ``collection``,
    ``stop_reason``, ``updated_at``."""
    filtered = status is not None or collection is not None
    thread_ids: dict[str, None] = {}  # newest first; listed before get_state, as the saver locks while listing
    for item in checkpointer.list(None):
        thread_ids[item.config["configurable"]["thread_id"]] = None
        if not filtered and len(thread_ids) == limit:
            break
    rows: list[dict] = []
    for thread_id in thread_ids:
        snapshot = graph.get_state({"configurable": {"thread_id": thread_id}})
        row = {
            "thread_id": thread_id,
            "question": _text(snapshot.values.get("question")) or "",
            "status": status_of(snapshot),
            "collection": collection_of(snapshot),
            "stop_reason": _text(snapshot.values.get("stop_reason")),
            "updated_at": snapshot.created_at,
        }
        if status in (None, row["status"]) and collection in (None, row["collection"]):
            rows.append(row)
            if len(rows) == limit:
                break
    return rows


def _text(value: Any) -> str | None:
    """A state value shown as text: ``None`` stays ``None``, anything else is its ``str`` (a raw
    ``graph.update_state`` may have written any value into a checkpoint)."""
    return value if value is None or isinstance(value, str) else str(value)


def _chunk_ids(evidence: Any) -> list[str]:
    """The chunk ids an ``evidence`` value holds: normally a list of evidence chunks (dicts with
    ``chunk_id``); ``None`` or any other shape written through ``graph.update_state`` gives the
    ids it does hold, or none, rather than an error."""
    if not isinstance(evidence, (list, tuple)):
        return []
    ids = (c.get("chunk_id") if isinstance(c, Mapping) else getattr(c, "chunk_id", None) for c in evidence)
    return [str(chunk_id) for chunk_id in ids if chunk_id is not None]


def history_rows(graph: CompiledStateGraph, thread_id: str) -> list[dict]:
    """Every checkpoint of the thread, oldest first (see :meth:`agentic_rag.app.App.history`).
    Values of another type than the graph writes (``{"evidence": None}`` through
    ``graph.update_state``) are shown as they are (as text, or no chunk ids), not raised on."""
    snapshots = list(graph.get_state_history({"configurable": {"thread_id": thread_id}}))[::-1]
    rows = []
    previous_next: tuple = ()
    for snapshot in snapshots:
        values, metadata = snapshot.values, snapshot.metadata or {}
        rows.append(
            {
                "checkpoint_id": snapshot.config["configurable"]["checkpoint_id"],
                "step": metadata.get("step"),
                "node": ",".join(previous_next) if metadata.get("source") == "loop" else "input",
                "created_at": snapshot.created_at,
                "route": _text(values.get("route")),
                "query": _text(values.get("query")),
                "evidence": _chunk_ids(values.get("evidence")),
                "retries": values.get("retries"),
                "hops": values.get("hops"),
                "stop_reason": _text(values.get("stop_reason")),
                "next": list(snapshot.next),
            }
        )
        previous_next = snapshot.next
    return rows


def prune_threads(checkpointer: BaseCheckpointSaver, older_than: timedelta, now: datetime | None = None) -> list[str]:
    """Delete every thread whose newest checkpoint is older than ``older_than`` (checkpoint
    growth): all its checkpoints and pending writes, through the saver's ``delete_thread``.

    Args:
        checkpointer: the SQLite or PostgreSQL saver.
        older_than: age of the newest checkpoint from which a thread goes.
        now: the current time (UTC; default: now).

    Returns:
        The deleted thread ids.
    """
    newest: dict[str, datetime] = {}
    for item in checkpointer.list(None):
        thread_id = item.config["configurable"]["thread_id"]
        when = datetime.fromisoformat(item.checkpoint["ts"])
        newest[thread_id] = max(when, newest.get(thread_id, when))
    cutoff = (now or datetime.now(timezone.utc)) - older_than
    gone = [thread_id for thread_id, when in newest.items() if when < cutoff]
    for thread_id in gone:
        checkpointer.delete_thread(thread_id)
    return gone


class ReplayEdit(BaseModel):
    """State fields ``replay`` may overwrite before continuing."""

    model_config = ConfigDict(extra="forbid")
    query: str | None = Field(default=None, min_length=1, max_length=2000)
    retries: int | None = Field(default=None, ge=0, le=MAX_RETRIES_LIMIT)
    route: Literal["retrieve", "direct"] | None = None


def require_latest(checkpointer: BaseCheckpointSaver, snapshot: Any, thread_id: str, checkpoint_id: str) -> None:
    """Check that ``checkpoint_id`` is the latest checkpoint of the thread (``snapshot``: its state).

    Raises:
        ThreadError: the thread has no such checkpoint, or a later one (``replay`` continues from it).
    """
    head = snapshot.config["configurable"]["checkpoint_id"]
    if checkpoint_id == head:
        return
    known = {
        c.config["configurable"]["checkpoint_id"] for c in checkpointer.list({"configurable": {"thread_id": thread_id}})
    }
    if checkpoint_id not in known:
        raise ThreadError(f"thread '{thread_id}' has no checkpoint {checkpoint_id}; see: agentic-rag history")
    raise ThreadError(
        f"checkpoint {checkpoint_id} is not the latest of thread '{thread_id}' ({head}); "
        f"to continue from an earlier checkpoint use: agentic-rag replay {thread_id} --checkpoint ID"
    )
