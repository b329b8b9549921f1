"""The command line's side of the warm service (:mod:`agentic_rag.service`): find the service of
a data folder, start it when none runs, and hand it a command, printing what it prints.

Only the standard library is imported here: a command the service answers costs this process
its start-up and one socket round trip, not LangGraph, the models or the database. The service
listens on a Unix socket in the data folder (``multiprocessing.connection``: length-prefixed
pickles after an HMAC challenge with a key only the folder's owner can read).
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection
from pathlib import Path

from core.errors import StoreUnavailableError

SERVED = frozenset({"ask", "resume", "replay", "history", "threads"})
"""Commands the warm service runs; the others run in the calling process."""
IDLE_VARIABLE = "AGENTIC_RAG_SERVER_IDLE_S"
DEFAULT_IDLE_S = 900.0
"""Seconds without a command after which the service stops (``Settings.server_idle_s``)."""
START_TIMEOUT_S = 60.0
"""Longest wait for a started service to listen (its first lines are standard-library only)."""


@dataclass(frozen=True)
class ServiceFiles:
    """Where the service of one data folder keeps its socket, pid, key, log and start lock."""

    data_dir: Path

    def _path(self, suffix: str) -> Path:
        return self.data_dir / f"server.{suffix}"

    @property
    def socket(self) -> Path:
        """The Unix socket; in the temp folder when the data folder's path is too long for one
        (a socket path holds at most 107 bytes)."""
        path = self._path("sock")
        if len(os.fsencode(path)) < 100:
            return path
        digest = hashlib.sha256(os.fsencode(self.data_dir)).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"agentic-rag-{os.getuid()}-{digest}.sock"

    @property
    def pid(self) -> Path:
        """The service's pid, locked (``flock``) while it lives: an unlocked file is stale."""
        return self._path("pid")

    @property
    def key(self) -> Path:
        return self._path("key")

    @property
    def log(self) -> Path:
        return self._path("log")

    @property
    def lock(self) -> Path:
        """Held by a command while it starts the service, so concurrent commands start one."""
        return self._path("lock")


def data_folder(folder: str | Path | None, env: dict[str, str] | os._Environ) -> Path:
    """The data folder as :class:`core.settings.Settings` reads it: ``folder`` (``--data-dir``),
    else ``AGENTIC_RAG_DATA_DIR``, else the XDG default; absolute."""
    if folder is None:
        folder = env.get("AGENTIC_RAG_DATA_DIR")
    if folder is None:
        base = env.get("XDG_DATA_HOME") or Path.home() / ".local" / "share"
        folder = Path(base) / "agentic-rag"
    return Path(os.path.abspath(os.path.expanduser(folder)))


def data_dir_of(argv: list[str], env: dict[str, str] | os._Environ) -> Path:
    """The data folder of the command line ``argv`` (its ``--data-dir``; see :func:`data_folder`)."""
    folder = None
    for i, arg in enumerate(argv):
        if arg == "--data-dir" and i + 1 < len(argv):
            folder = argv[i + 1]
        elif arg.startswith("--data-dir="):
            folder = arg.partition("=")[2]
    return data_folder(folder, env)


def command_of(argv: list[str]) -> str | None:
    """The command name in ``argv`` (after the global options), or ``None``."""
    i = 0
    while i < len(argv):
        if argv[i] == "--chat-model":
            i += 2
        elif argv[i].startswith("-"):
            i += 1
        else:
            return argv[i]
    return None


def idle_seconds(env: dict[str, str] | os._Environ) -> float | None:
    """The idle time the environment sets (:data:`DEFAULT_IDLE_S` when unset), ``None`` when it is
    not a number of seconds, 0 or more (the settings then report the error)."""
    try:
        value = float(env.get(IDLE_VARIABLE, DEFAULT_IDLE_S))
    except ValueError:
        return None
    return value if value >= 0 else None


def running_pid(files: ServiceFiles) -> int | None:
    """The pid of the live service of ``files.data_dir``, or ``None``: a pid file nobody locks
    is left by a service that died (even by ``kill -9``: the kernel releases its lock)."""
    try:
        with open(files.pid, "r+") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return int(handle.read().strip() or 0) or None
            return None
    except (FileNotFoundError, ValueError):
        return None


def connect(files: ServiceFiles) -> Connection | None:
    """A connection to the running service, or ``None`` when none listens.

    Raises:
        PermissionError: its socket or key belongs to another user.
    """
    try:
        key = files.key.read_bytes()
        return Client(str(files.socket), family="AF_UNIX", authkey=key)
    except (FileNotFoundError, ConnectionRefusedError, ConnectionResetError, EOFError, AuthenticationError):
        return None  # none listens, or one that is starting or stopping


def ask_service(files: ServiceFiles, message: tuple) -> tuple | None:
    """Send ``message`` (``("status",)``, ``("stop",)``) to the running service and return its
    reply, or ``None`` when none runs.

    Raises:
        PermissionError: its socket or key belongs to another user.
    """
    conn = connect(files)
    if conn is None:
        return None
    with conn:
        try:
            conn.send(message)
            return conn.recv()
        except (EOFError, ConnectionError):
            return None


def postgres_pid(data_dir: Path) -> int | None:
    """The pid of the embedded PostgreSQL running for ``data_dir`` (its ``postmaster.pid``), or ``None``."""
    try:
        pid = int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    try:
        os.kill(pid, 0)
    except PermissionError:  # alive: pgserver runs it as its own user when root starts it
        return pid
    except OSError:
        return None
    return pid


def start(files: ServiceFiles) -> Connection | None:
    """Connect to the service, starting it first when none runs (one start for concurrent
    commands: the start lock). It listens before it loads the app: a command sent at once waits.

    Returns:
        The connection, or ``None`` when the service could not be started (see ``server.log``).

    Raises:
        PermissionError: the data folder's service files belong to another user.
    """
    with open(files.lock, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if (conn := connect(files)) is not None:
            return conn
        process = None  # a service alive but not listening yet, or about to stop: wait for it
        if running_pid(files) is None:
            files.socket.unlink(missing_ok=True)  # left by a service killed outright
            with open(files.log, "ab") as log:
                process = subprocess.Popen(
                    [sys.executable, "-m", "agentic_rag.service", str(files.data_dir)],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True, close_fds=True,
                )  # fmt: skip
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if (conn := connect(files)) is not None:
                return conn
            if process is not None and process.poll() is not None:
                break
            time.sleep(0.02)
    return None


def program_name() -> str:
    """What usage messages call this program, as click names it (``python -m agentic_rag.cli``
    when run as a module)."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    if spec is not None and spec.name not in ("__main__", ""):
        return f"python -m {spec.name.removesuffix('.__main__')}"
    return os.path.basename(sys.argv[0]) or "agentic-rag"


def _stream_info(stream) -> dict:
    return {"tty": stream.isatty(), "encoding": stream.encoding, "errors": stream.errors}


def relay(conn: Connection, argv: list[str], files: ServiceFiles) -> int | None:
    """Run ``argv`` in the service on ``conn``: its output is written here as it comes, Ctrl-C
    and SIGTERM are passed on (the command stops as it would here).

    Returns:
        The command's exit code, or ``None`` when the service stopped before taking the command
        (it was stopping for idleness: start another).
    """
    env = dict(os.environ)
    if sys.stdout.isatty() and "COLUMNS" not in env:
        env["COLUMNS"] = str(os.get_terminal_size(sys.stdout.fileno()).columns)
    request = {
        "argv": argv, "env": env, "cwd": os.getcwd(), "prog": program_name(),
        "streams": [_stream_info(sys.stdout), _stream_info(sys.stderr)],
    }  # fmt: skip
    outputs = {1: sys.stdout, 2: sys.stderr}
    taken = False

    def interrupt(_signum, _frame) -> None:
        if not taken:
            raise KeyboardInterrupt  # the command has not started: nothing to stop
        conn.send(("interrupt",))

    previous = {sig: signal.signal(sig, interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        conn.send(("run", request))
        while True:
            message = conn.recv()
            if message[0] == "accepted":
                taken = True
            elif message[0] == "out" and message[1] in outputs:
                try:
                    outputs[message[1]].buffer.write(message[2])
                    outputs[message[1]].buffer.flush()
                except BrokenPipeError:  # `| head`: the rest of this stream is not read
                    del outputs[message[1]]
            elif message[0] == "exit":
                return message[1]
    except KeyboardInterrupt:
        return 130
    except (EOFError, ConnectionError):
        if not taken:
            return None
        print(f"error: the agentic-rag service stopped during the command; see {files.log}", file=sys.stderr)
        return 1
    finally:
        conn.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def forward(argv: list[str], parses: Callable[[list[str]], bool]) -> int | None:
    """Run ``argv`` in the warm service of its data folder when it is a served command
    (:data:`SERVED`) and the service is on (``AGENTIC_RAG_SERVER_IDLE_S`` not 0).

    Args:
        argv: the command line, without the program name.
        parses: whether ``argv`` parses (a usage error must not start a service); asked only
            when no service runs.

    Returns:
        The exit code, or ``None``: run the command in this process (not served, the service is
        off, the data folder does not exist, or the service could not be started).

    Raises:
        StoreUnavailableError: the data folder's service files belong to another user.
    """
    if command_of(argv) not in SERVED or "--help" in argv or not idle_seconds(os.environ):
        return None
    files = ServiceFiles(data_dir_of(argv, os.environ))
    if not files.data_dir.is_dir():
        return None  # the command says that nothing was ingested there
    try:
        for _ in range(3):  # a service stopping for idleness just as this command came: start another
            conn = connect(files)
            if conn is None:
                if not parses(argv):  # a usage error starts no service
                    return None
                conn = start(files)
            if conn is None:
                return None
            code = relay(conn, argv, files)
            if code is not None:
                return code
    except PermissionError as exc:
        raise StoreUnavailableError(
            f"cannot use the agentic-rag service of {files.data_dir}: {exc.filename or exc} belongs to another "
            "user; give --data-dir a folder of your own, or set AGENTIC_RAG_SERVER_IDLE_S=0 to run without it"
        ) from None
    return None


def dispatch(argv: list[str], parses: Callable[[list[str]], bool], run_here: Callable[[], None]) -> None:
    """Run the command line ``argv``: in the warm service when it takes it (:func:`forward`),
    else by ``run_here``; exit with the command's code.

    Args:
        argv: the arguments, without the program name.
        parses: see :func:`forward`.
        run_here: runs ``sys.argv`` in this process and exits (:func:`agentic_rag.cli.run_here`).
    """
    try:
        code = forward(argv, parses)
    except StoreUnavailableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
    if code is not None:
        sys.exit(code)
    run_here()
