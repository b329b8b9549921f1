"""The warm service: one detached process per data folder that keeps what a command would
otherwise load every time — LangGraph and the models imported, the embedded PostgreSQL running
(its handle held), an :class:`~agentic_rag.app.App` per set of settings with its reads of the
collection — and runs the command line's :data:`~agentic_rag.client.SERVED` commands for
:mod:`agentic_rag.client`, one at a time, printing to the caller's terminal.

A command runs exactly as in its own process: the caller's arguments, environment, working
folder and terminal; Ctrl-C in the caller interrupts it the same way. An App is opened again when
its collection changed since its last command (an ingest by another process:
:meth:`store.catalog.Catalog.version`). The service stops after ``AGENTIC_RAG_SERVER_IDLE_S``
seconds without a command, on ``agentic-rag server stop`` and on SIGTERM; the embedded
PostgreSQL stops with it unless another process still uses it (pgserver's handle count).

    python -m agentic_rag.service DATA_DIR      # what the command line starts, detached

The first lines import only the standard library, so the socket listens at once and a command
that started the service waits in its queue while the heavy imports run.
"""

from __future__ import annotations

import _thread
import fcntl
import io
import logging
import os
import secrets
import signal
import sys
import threading
import time
import traceback
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path

from agentic_rag.client import DEFAULT_IDLE_S, ServiceFiles, idle_seconds


class _Output(io.RawIOBase):
    """One of the caller's output streams (1: stdout, 2: stderr), sent as bytes on its
    connection; output after the caller has gone is dropped."""

    def __init__(self, conn: Connection, fd: int, tty: bool) -> None:
        super().__init__()
        self._conn, self._fd, self._tty = conn, fd, tty
        self.gone = False

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._tty

    def write(self, data) -> int:
        if not self.gone:
            try:
                self._conn.send(("out", self._fd, bytes(data)))
            except OSError:
                self.gone = True
        return len(data)


def _text_stream(conn: Connection, fd: int, info: dict) -> io.TextIOWrapper:
    raw = _Output(conn, fd, info["tty"])
    return io.TextIOWrapper(
        io.BufferedWriter(raw), encoding=info["encoding"], errors=info["errors"], write_through=True
    )


class Service:
    """The service of one data folder (see the module docstring).

    Args:
        files: the folder's service files.
        idle_s: seconds without a command after which it stops.
    """

    def __init__(self, files: ServiceFiles, idle_s: float) -> None:
        self.files = files
        self.idle_s = idle_s
        self.started = time.time()
        self.last = time.monotonic()
        self.busy = False
        self.stopping = False
        self.commands = 0
        self._key = secrets.token_bytes(32)
        self._interrupts = threading.Lock()
        self._running = False
        self._warm = threading.Thread(target=self._start_postgres, daemon=True)
        self.apps = None  # agentic_rag.options.AppPool, once the app is imported

    # -- life cycle -------------------------------------------------------------------------

    def run(self) -> None:
        """Serve until idle, stopped or terminated; then close every App and release the
        embedded PostgreSQL. Returns at once when another service holds the folder."""
        pid_file = open(self.files.pid, "a+")
        try:
            fcntl.flock(pid_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return  # another service of this folder is alive
        pid_file.truncate(0)
        pid_file.write(f"{os.getpid()}\n")
        pid_file.flush()
        key = os.open(self.files.key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.fchmod(key, 0o600)  # readable by its owner only, whatever an older file allowed
        os.write(key, self._key)
        os.close(key)
        self.files.socket.unlink(missing_ok=True)
        listener = Listener(str(self.files.socket), family="AF_UNIX", backlog=64, authkey=self._key)
        signal.signal(signal.SIGTERM, self._terminate)
        try:
            self._warm.start()
            self._warm_up()
            self.last = time.monotonic()  # idle from when it is ready
            threading.Thread(target=self._watch_idle, daemon=True).start()
            while not self.stopping:
                try:
                    conn = listener.accept()
                except (OSError, EOFError):  # a caller that failed the challenge or went away
                    continue
                with conn:
                    self._serve(conn)
        except KeyboardInterrupt:  # SIGTERM while waiting
            pass
        finally:
            listener.close()
            self._close()
            pid_file.truncate(0)
            pid_file.close()

    def _terminate(self, _signum, _frame) -> None:
        self.stopping = True
        raise KeyboardInterrupt

    def _start_postgres(self) -> None:
        """Start the embedded PostgreSQL while the main thread imports the app (a command will
        want it: the folder holds one). A failure is left for the command to report."""
        if os.environ.get("DATABASE_URL") or not (self.files.data_dir / "pg").is_dir():
            return
        from store.embedded import embedded_postgres_url

        try:
            embedded_postgres_url(self.files.data_dir)
        except Exception:  # noqa: BLE001 - the command opening the store reports it with its advice
            logging.getLogger(__name__).warning("the embedded PostgreSQL did not start", exc_info=True)

    def _warm_up(self) -> None:
        """Import and load what every question needs, once per process."""
        from agentic_rag.options import AppPool, serve_apps
        from core.settings import Settings
        from core.spelling import unknown_words
        from core.text import sentences
        from providers.embeddings import load_embedding_model

        self.apps = AppPool()
        serve_apps(self.apps)
        try:
            load_embedding_model(Settings().embedding).embeddings.embed_query("warm")
        except Exception:  # noqa: BLE001 - a wrong setting is reported by the command that uses it
            pass
        unknown_words("warm up the spelling dictionaries")
        sentences("Warm up. The sentence splitter.")
        self._warm.join()

    def _watch_idle(self) -> None:
        """Tell the main loop to stop once no command came for ``idle_s`` (it checks again)."""
        while not self.stopping:
            time.sleep(min(1.0, max(self.idle_s / 10, 0.05)))
            if not self.busy and time.monotonic() - self.last >= self.idle_s:
                try:
                    with Client(str(self.files.socket), family="AF_UNIX", authkey=self._key) as conn:
                        conn.send(("idle",))
                except OSError:
                    return

    def _close(self) -> None:
        if self.apps is not None:
            self.apps.close()
        from store.embedded import release_embedded_postgres

        release_embedded_postgres()

    # -- requests ---------------------------------------------------------------------------

    def _serve(self, conn: Connection) -> None:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        kind = message[0]
        if kind == "idle":
            self.stopping = time.monotonic() - self.last >= self.idle_s
        elif kind in ("stop", "status"):
            self.stopping = self.stopping or kind == "stop"
            try:
                conn.send(("stopped", os.getpid()) if kind == "stop" else ("status", self.status()))
            except OSError:  # the caller did not wait for the answer
                pass
        elif kind == "run":
            self.busy = True
            try:
                self._command(conn, message[1])
            except KeyboardInterrupt:  # an interrupt that came as the command ended
                pass
            finally:
                self.busy, self.last, self.commands = False, time.monotonic(), self.commands + 1

    def status(self) -> dict:
        """``pid``, ``data_dir``, ``database_url`` (of the embedded server, ``None`` before a
        command opened it), ``idle_s``, ``idle_left_s``, ``commands`` served, ``started`` (epoch s)."""
        from store.embedded import running_url

        left = self.idle_s - (time.monotonic() - self.last)
        return {
            "pid": os.getpid(), "data_dir": str(self.files.data_dir),
            "database_url": running_url(self.files.data_dir), "idle_s": self.idle_s,
            "idle_left_s": max(0.0, left), "commands": self.commands, "started": self.started,
        }  # fmt: skip

    def _command(self, conn: Connection, request: dict) -> None:
        """Run one command line as the caller would have, relaying its output and interrupts."""
        from agentic_rag.cli import run

        conn.send(("accepted",))
        out, err = (_text_stream(conn, fd, info) for fd, info in zip((1, 2), request["streams"], strict=True))
        saved = dict(os.environ), os.getcwd(), sys.stdout, sys.stderr
        handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)]
        done = threading.Event()
        watcher = threading.Thread(target=self._watch_caller, args=(conn, done), daemon=True)
        code = 1
        try:
            os.environ.clear()
            os.environ.update(request["env"])
            os.chdir(request["cwd"])
            sys.stdout, sys.stderr = out, err
            for handler in handlers:
                handler.setStream(err)
            with self._interrupts:
                self._running = True
            watcher.start()
            code = run(request["argv"], request["prog"])
        except KeyboardInterrupt:
            code = 130
        except Exception:  # a bug: the caller sees the traceback its own process would have shown
            traceback.print_exc()
        finally:
            with self._interrupts:
                self._running = False
            done.set()
            for stream in (out, err):
                stream.flush()
            for handler in handlers:
                handler.setStream(saved[3])
            sys.stdout, sys.stderr = saved[2], saved[3]
            os.chdir(saved[1])
            os.environ.clear()
            os.environ.update(saved[0])
        try:
            conn.send(("exit", code))
        except OSError:
            pass

    def _watch_caller(self, conn: Connection, done: threading.Event) -> None:
        """Interrupt the running command (as Ctrl-C would) when its caller asks, or goes away."""
        while not done.is_set():
            try:
                if not conn.poll(0.1):
                    continue
                conn.recv()  # ("interrupt",): the caller's Ctrl-C or SIGTERM
            except (EOFError, OSError):  # gone: stop the command, as its own process would have stopped
                self._interrupt(done)
                return
            self._interrupt(done)

    def _interrupt(self, done: threading.Event) -> None:
        with self._interrupts:
            if self._running and not done.is_set():
                _thread.interrupt_main()


def main() -> None:
    """Entry point: ``python -m agentic_rag.service DATA_DIR``; the idle time comes from
    ``AGENTIC_RAG_SERVER_IDLE_S``."""
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    os.chdir("/")  # a detached process holds no caller's folder
    idle = idle_seconds(os.environ) or DEFAULT_IDLE_S
    Service(ServiceFiles(Path(sys.argv[1])), idle).run()


if __name__ == "__main__":
    main()
