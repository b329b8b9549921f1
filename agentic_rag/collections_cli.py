"""``agentic-rag collections``: list the collections of the database, or delete one
(:mod:`store.collections`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Iterable

import typer

from agentic_rag.options import AsJson, DataDir, open_app, require_database, settings_from

if TYPE_CHECKING:
    from agentic_rag.app import App
    from store.collections import CollectionInfo

collections = typer.Typer()


def warn_unfinished_ingests(application: App, names: Iterable[str | None]) -> None:
    """Say on stderr, for each of the collections ``names`` whose last ingest did not finish
    (:func:`store.collections.unfinished_ingests`), that its answers may miss documents and the
    command that continues it; nothing when the data folder holds no database yet.

    Args:
        application: the command's app (its settings name the database).
        names: the collections the command reads (``None`` entries are passed over).

    Raises:
        StoreUnavailableError: the database cannot be reached.
    """
    from store.collections import unfinished_ingests

    settings = application.settings
    if settings.database_url is None and not (settings.data_dir / "pg").is_dir():
        return
    for unfinished in unfinished_ingests(application.services.database_url, names):
        started = unfinished.started.astimezone().strftime("%Y-%m-%d %H:%M")
        typer.echo(
            f"note: the last ingest into collection '{unfinished.collection}' (started {started}) did not finish, "
            "so answers may miss some of its documents; unless it is still running, continue it by running the "
            f"same ingest command again (unchanged files are skipped): {unfinished.command}",
            err=True,
        )


def collection_table(found: list[CollectionInfo]) -> list[str]:
    """The lines of ``collections``: a header, then one per collection: name, chunks, sources,
    embedding model, when the last ingest started and whether it finished."""
    rows = [
        (
            info.name,
            "lost" if info.chunks is None else str(info.chunks),  # its table was dropped by hand
            str(info.sources),
            f"{info.embedding_model} ({info.dimension}-d)",
            info.last_ingest.astimezone().strftime("%Y-%m-%d %H:%M") if info.last_ingest else "-",
            {True: "finished", False: "did not finish: run the same ingest again", None: ""}[info.finished],
        )
        for info in found
    ]
    header = ("collection", "chunks", "sources", "embedding", "last ingest", "")
    name, embedding = (max(len(row[i]) for row in [header, *rows]) for i in (0, 3))
    return [
        f"{r[0]:<{name}}  {r[1]:>8} {r[2]:>8}  {r[3]:<{embedding}}  {r[4]:<16}  {r[5]}".rstrip()
        for r in [header, *rows]
    ]


@collections.callback(invoke_without_command=True)
def list_collections(ctx: typer.Context, as_json: AsJson = False, data_dir: DataDir = None) -> None:
    """Every collection: chunks, sources (files), embedding model, when the last ingest started
    and whether it finished ("did not finish": stopped by Ctrl-C, a kill or a crash; the same
    ingest command continues it). `agentic-rag collections delete NAME` deletes one."""
    from core.errors import CollectionNotFoundError
    from store.collections import collections_at

    if ctx.invoked_subcommand is not None:
        return
    settings = settings_from(data_dir, None)
    try:
        require_database(settings)
    except CollectionNotFoundError:
        found = []
    else:
        with open_app(settings) as application:
            found = collections_at(application.services.database_url)  # the embedded server started if needed
    if as_json:
        typer.echo(json.dumps([asdict(info) for info in found], default=str))
    elif not found:
        typer.echo(f"no collections under {settings.data_dir}: agentic-rag ingest PATH --collection NAME makes one")
    else:
        typer.echo("\n".join(collection_table(found)))


@collections.command("delete")
def delete(
    name: Annotated[str, typer.Argument(help="The collection (see `agentic-rag collections`).")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking for confirmation.")] = False,
    data_dir: DataDir = None,
) -> None:
    """Delete a collection: its chunks, indexes, mention graph and list of ingested files. Asks
    for confirmation unless --yes. Threads asked on it are kept (`agentic-rag prune` deletes old
    threads); ingesting into the name again starts it anew."""
    from store.collections import collections_at, delete_collection

    settings = settings_from(data_dir, None)
    require_database(settings)
    with open_app(settings) as application:
        url = application.services.database_url  # the embedded server started if needed
        info = next((c for c in collections_at(url) if c.name == name), None)
        if info is None:
            delete_collection(url, name)  # raises the error naming the existing collections
        held = "chunk table lost" if info.chunks is None else f"{info.chunks} chunks"  # dropped by hand
        size = f"{held}, {info.sources} files"
        if not yes:
            try:
                confirmed = typer.confirm(f"delete collection '{name}' ({size})?")
            except typer.Abort:  # no answer: end of input (not a terminal)
                confirmed = False
            if not confirmed:
                typer.echo(f"collection '{name}' not deleted (--yes deletes without asking)", err=True)
                raise typer.Exit(1)
        delete_collection(url, name, application.services.tuning)
    typer.echo(f"deleted collection '{name}' ({size})")
