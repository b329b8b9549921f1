"""The thread commands: ``threads``, ``prune``, ``history`` and ``replay`` (registered by
:mod:`agentic_rag.cli`)."""

from __future__ import annotations

from datetime import timedelta
from functools import partial
from typing import Annotated, Optional

import typer

from agentic_rag.collections_cli import warn_unfinished_ingests
from agentic_rag.options import (
    AsJson,
    Collection,
    DataDir,
    Embedding,
    ThreadId,
    open_app,
    parse_answer,
    resume_command,
    settings_from,
    split_fields,
    thread_settings,
)
from agentic_rag.output import checkpoint_line, no_threads_message, print_result, print_rows, thread_line
from core.errors import ConfigurationError


def threads(
    limit: Annotated[int, typer.Option(help="How many threads.")] = 20,
    status: Annotated[
        Optional[str],
        typer.Option(help="Only threads with this status: done, interrupted (waiting for a review) or unfinished."),
    ] = None,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Annotated[Optional[str], typer.Option("--collection", help="Only threads asked on it.")] = None,
) -> None:
    """Recent threads: status (done, interrupted for a review, unfinished), collection, last update
    and question; then a note for each of their collections whose last ingest did not finish."""
    if status not in (None, "done", "interrupted", "unfinished"):
        raise ConfigurationError(f"--status {status!r}: use done, interrupted or unfinished")
    with open_app(settings_from(data_dir, None)) as application:
        rows = application.threads(limit, status, collection)
        print_rows(rows, as_json, thread_line)
        if not rows and not as_json:  # an empty answer says what was looked for
            typer.echo(no_threads_message(status, collection))
        warn_unfinished_ingests(application, {row.get("collection") for row in rows} | {collection})


def prune(
    older_than: Annotated[float, typer.Option("--older-than", help="Age in days of a thread's newest checkpoint.")],
    data_dir: DataDir = None,
) -> None:
    """Delete the threads whose last checkpoint is older than --older-than days (every collection)."""
    from agentic_rag.threads import prune_threads  # LangGraph: not imported for --help

    if older_than < 0:
        raise ConfigurationError(f"--older-than {older_than}: give a number of days, 0 or more")
    with open_app(settings_from(data_dir, None)) as application:
        gone = prune_threads(application.checkpointer, timedelta(days=older_than))
    typer.echo(f"deleted {len(gone)} thread(s) last updated more than {older_than:g} day(s) ago")


def history(
    thread: ThreadId,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Collection = None,
) -> None:
    """Every checkpoint of a thread: step, node, route, query, kept evidence, retries, stop. With
    --collection, the thread must have been asked on it."""
    with open_app(thread_settings(data_dir, collection, None, thread)) as application:
        print_rows(application.history(thread), as_json, checkpoint_line)


def replay(
    thread: ThreadId,
    checkpoint: Annotated[str, typer.Option("--checkpoint", help="Checkpoint id (see history).")],
    set_: Annotated[
        Optional[list[str]],
        typer.Option("--set", help="Edit state first: FIELD=JSON (repeatable), e.g. query='\"x\"'."),
    ] = None,
    as_json: AsJson = False,
    data_dir: DataDir = None,
    collection: Collection = None,
    embedding: Embedding = None,
) -> None:
    """Time travel: continue a thread from an earlier checkpoint (its history forks there)."""
    updates = {name: parse_answer(raw) for name, raw in split_fields(set_ or [], "--set")}
    with open_app(thread_settings(data_dir, collection, embedding, thread)) as application:
        result = application.replay(thread, checkpoint, updates or None)
    print_result(
        result, as_json, partial(resume_command, data_dir=data_dir, collection=collection, embedding=embedding)
    )
