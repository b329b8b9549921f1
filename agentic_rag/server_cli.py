"""``agentic-rag server status|stop``: the data folder's warm service (:mod:`agentic_rag.service`)."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime

import typer

from agentic_rag.client import ServiceFiles, ask_service, data_folder, postgres_pid, running_pid
from agentic_rag.options import AsJson, DataDir
from core.errors import StoreUnavailableError

server = typer.Typer(
    no_args_is_help=True,
    help="The warm service that keeps the models and the embedded PostgreSQL loaded between commands.",
)

STOP_TIMEOUT_S = 60.0
"""Longest wait for the service to finish its command and stop."""


def _files(data_dir) -> ServiceFiles:
    return ServiceFiles(data_folder(data_dir, os.environ))


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def _reply(files: ServiceFiles, message: tuple) -> tuple | None:
    try:
        return ask_service(files, message)
    except PermissionError as exc:
        raise StoreUnavailableError(
            f"the agentic-rag service files of {files.data_dir} belong to another user ({exc.filename}); "
            "give --data-dir a folder of your own"
        ) from None


def _stale_note(files: ServiceFiles) -> str | None:
    """Remove a pid file left by a service that died; say so."""
    if files.pid.exists() and running_pid(files) is None and files.pid.read_text().strip():
        pid = files.pid.read_text().strip()
        files.pid.unlink(missing_ok=True)
        files.socket.unlink(missing_ok=True)
        return f"removed the stale pid file of process {pid}, which ended without stopping the service"
    return None


@server.command()
def status(data_dir: DataDir = None, as_json: AsJson = False) -> None:
    """Whether the data folder's warm service runs: its pid, data folder, database URL and the
    idle time left before it stops itself (AGENTIC_RAG_SERVER_IDLE_S)."""
    files = _files(data_dir)
    reply = _reply(files, ("status",))
    if reply is not None:
        info = {"running": True, **reply[1]}
    else:
        info = {"running": False, "data_dir": str(files.data_dir), "postgres_pid": postgres_pid(files.data_dir)}
        info["note"] = _stale_note(files)
    if as_json:
        typer.echo(json.dumps(info))
        return
    if not info["running"]:
        typer.echo(f"server: not running (data folder {files.data_dir})")
        if info["note"]:
            typer.echo(f"note: {info['note']}")
        if info["postgres_pid"]:
            typer.echo(
                f"note: the embedded PostgreSQL (pid {info['postgres_pid']}) runs without the service; "
                "`agentic-rag server stop` stops it"
            )
        return
    started = datetime.fromtimestamp(info["started"]).strftime("%Y-%m-%d %H:%M:%S")
    typer.echo(f"server: running (pid {info['pid']}, since {started}, {info['commands']} command(s) served)")
    typer.echo(f"data folder: {info['data_dir']}")
    typer.echo(f"database: {info['database_url'] or 'not opened yet'}")
    typer.echo(f"idle stop: in {_minutes(info['idle_left_s'])} (after {_minutes(info['idle_s'])} without a command)")


@server.command()
def stop(data_dir: DataDir = None) -> None:
    """Stop the data folder's warm service once its running command ends, and the embedded
    PostgreSQL with it (unless another process still uses it); also a server left running by a
    service that was killed."""
    files = _files(data_dir)
    reply = _reply(files, ("stop",))
    if reply is not None:
        deadline = time.monotonic() + STOP_TIMEOUT_S
        while running_pid(files) is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        if running_pid(files) is not None:
            raise StoreUnavailableError(f"the service (pid {reply[1]}) did not stop within {STOP_TIMEOUT_S:g} s")
        typer.echo(f"stopped the service (pid {reply[1]}) of {files.data_dir}")
    else:
        if note := _stale_note(files):
            typer.echo(f"note: {note}")
        typer.echo(f"no service runs for {files.data_dir}")
    pid = postgres_pid(files.data_dir)
    if pid is not None and not os.environ.get("DATABASE_URL"):
        from store.embedded import embedded_postgres_url, release_embedded_postgres

        embedded_postgres_url(files.data_dir)  # this process's handle on it, then the last one let go
        release_embedded_postgres()
        pid = postgres_pid(files.data_dir)
        typer.echo(
            "the embedded PostgreSQL stopped"
            if pid is None
            else f"the embedded PostgreSQL (pid {pid}) keeps running: another process uses it"
        )
