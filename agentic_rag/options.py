"""The command line's shared options and their parsing: settings overrides, ``FIELD=VALUE`` items,
``--answer``; the ``resume`` command to print for a thread; the application for one command."""

from __future__ import annotations

import json
import os
import shlex
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Iterator, Optional

import typer

from core.errors import AgenticRagError, CollectionNotFoundError, ConfigurationError, describe_validation

if TYPE_CHECKING:  # pydantic-settings is imported by the commands that read settings, not for --help
    from agentic_rag.app import App
    from core.settings import Settings


def split_fields(items: list[str], option: str) -> list[tuple[str, str]]:
    """``FIELD=VALUE`` items as (field, raw value) pairs.

    Raises:
        ConfigurationError: an item without ``=`` or without a field name.
    """
    pairs = []
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep or not name:
            raise ConfigurationError(f"{option} {item!r}: use FIELD=VALUE")
        pairs.append((name, raw))
    return pairs


def field_values(items: list[str], option: str) -> dict:
    """``FIELD=VALUE`` items as a dict; a value that parses as JSON (``["a", "b"]``) is taken as
    such, else as text; numbers stay the text the user typed (``2.10``, not ``2.1``: the filter
    converts them to the field's type); a repeated field collects its values in a list."""
    values: dict = {}
    for name, raw in split_fields(items, option):
        try:
            value = json.loads(raw, parse_float=str, parse_int=str)
        except json.JSONDecodeError:
            value = raw
        if name in values:
            previous = values[name] if isinstance(values[name], list) else [values[name]]
            value = [*previous, *(value if isinstance(value, list) else [value])]
        values[name] = value
    return values


def parse_answer(value: str) -> object:
    """A JSON value when ``value`` looks like JSON, else the plain string (``approve``).

    Raises:
        ConfigurationError: ``value`` starts like a JSON object or list but does not parse.
    """
    try:
        return json.loads(value)
    except json.JSONDecodeError as exc:
        if value.lstrip().startswith(("{", "[", '"')):
            raise ConfigurationError(f"--answer is not valid JSON ({exc.msg} at character {exc.pos})") from None
        return value


def settings_from(data_dir: Path | None, collection: str | None, embedding: str | None = None) -> Settings:
    from pydantic import ValidationError

    from core.settings import Settings

    overrides = {"data_dir": data_dir, "collection": collection, "embedding": embedding}
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise ConfigurationError(f"invalid setting ({describe_validation(exc)})") from None


def thread_settings(
    data_dir: Path | None, collection: str | None, embedding: str | None, thread: str | None
) -> Settings:
    """:func:`settings_from`, on the collection ``thread`` was asked on when ``--collection`` is
    not given (a thread remembers it: :func:`agentic_rag.checkpoints.thread_collection`)."""
    from agentic_rag.checkpoints import thread_collection

    if collection is None and thread:
        collection = thread_collection(settings_from(data_dir, None), thread)
    return settings_from(data_dir, collection, embedding)


def resume_command(thread: str, data_dir: Path | None, collection: str | None, embedding: str | None) -> str:
    """The ``resume`` command for ``thread``, with the store options this command was given and
    the chat model it ran with (``--chat-model``, or ``AGENTIC_RAG_CHAT_MODEL``)."""
    given = {"--data-dir": data_dir, "--collection": collection, "--embedding": embedding}
    chat = os.environ.get("AGENTIC_RAG_CHAT_MODEL")
    head = f"agentic-rag --chat-model {shlex.quote(chat)} resume" if chat else "agentic-rag resume"
    return " ".join([head, thread, *(f"{k} {shlex.quote(str(v))}" for k, v in given.items() if v)])


DataDir = Annotated[
    Optional[Path],
    typer.Option("--data-dir", help="Data folder (default $XDG_DATA_HOME/agentic-rag; env AGENTIC_RAG_DATA_DIR)."),
]
Collection = Annotated[
    Optional[str], typer.Option("--collection", help="Chunk collection (env AGENTIC_RAG_COLLECTION).")
]
Embedding = Annotated[Optional[str], typer.Option("--embedding", help="'wordllama' or 'openai:<model>'.")]
Deciders = Annotated[Optional[str], typer.Option("--deciders", help="auto | llm | rules.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]
ThreadId = Annotated[str, typer.Argument(help="Thread id (see `agentic-rag threads`).")]
ThreadOption = Annotated[
    Optional[str],
    typer.Option(
        "--thread",
        help="Thread to continue (see `agentic-rag threads`); an id no thread has is an error, unless --new. "
        "Omitted: a new thread with a new id.",
    ),
]
NewThread = Annotated[
    bool, typer.Option("--new", help="Start a new thread under the --thread id (an error if it exists).")
]


class AppPool:
    """The applications the warm service (:mod:`agentic_rag.service`) keeps from one command to
    the next: one per set of settings, the :attr:`size` most recently used. One whose collection
    changed since its last command (:meth:`store.catalog.Catalog.version`: an ingest by another
    process) or whose command failed unexpectedly (Ctrl-C mid-query) is opened again."""

    size = 4

    def __init__(self) -> None:
        self._apps: dict[str, tuple[App, object]] = {}

    @staticmethod
    def _version(application: App) -> object:
        store = application.services.__dict__.get("store")
        try:
            return None if store is None else store.catalog.version()
        except Exception:  # noqa: BLE001 - a store that cannot answer is opened again
            return object()  # equal to nothing

    @contextmanager
    def open(self, settings: Settings) -> Iterator[App]:
        """The kept application for ``settings`` (a new one when none is kept or it is stale)."""
        from agentic_rag.app import App

        key = settings.model_dump_json()
        application, version = self._apps.pop(key, (None, None))
        if application is not None and self._version(application) != version:
            application.close()
            application = None
        application = application or App(settings)
        try:
            yield application
        except AgenticRagError:  # a user's error: the application is as good as before
            self._keep(key, application)
            raise
        except BaseException:
            application.close()
            raise
        self._keep(key, application)

    def _keep(self, key: str, application: App) -> None:
        self._apps[key] = (application, self._version(application))
        while len(self._apps) > self.size:
            self._apps.pop(next(iter(self._apps)))[0].close()

    def close(self) -> None:
        """Close every kept application."""
        while self._apps:
            self._apps.popitem()[1][0].close()


_pool: list[AppPool] = []


def serve_apps(pool: AppPool) -> None:
    """Make :func:`open_app` take its applications from ``pool`` in this process (the warm service)."""
    _pool[:] = [pool]


@contextmanager
def open_app(settings: Settings) -> Iterator[App]:
    """The application for one command, closed (database connections released) afterwards; in
    the warm service, the one it keeps (:class:`AppPool`)."""
    if _pool:
        with _pool[0].open(settings) as application:
            yield application
        return
    from agentic_rag.app import App  # heavy imports only once arguments are valid

    application = App(settings)
    try:
        yield application
    finally:
        application.close()


def require_database(settings: Settings) -> None:
    """Refuse a question on a data folder that holds no database (a mistyped ``--data-dir``)
    before an embedded server is created there.

    Raises:
        CollectionNotFoundError: no ``DATABASE_URL`` and no embedded database in the data folder.
    """
    if settings.database_url is None and not (settings.data_dir / "pg").is_dir():
        raise CollectionNotFoundError(
            f"nothing was ingested under {settings.data_dir} (no database there); check --data-dir, "
            f"or ingest documents first: agentic-rag ingest PATH --data-dir {settings.data_dir}"
        )
