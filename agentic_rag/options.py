"""Parsing the command line's option values: settings overrides, ``FIELD=VALUE`` items,
``--answer``; and the ``resume`` command to print for a thread."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from pydantic import ValidationError

from core.errors import ConfigurationError, describe_validation
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
    overrides = {"data_dir": data_dir, "collection": collection, "embedding": embedding}
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise ConfigurationError(f"invalid setting ({describe_validation(exc)})") from None


def resume_command(thread: str, data_dir: Path | None, collection: str | None, embedding: str | None) -> str:
    """The ``resume`` command for ``thread``, with the store options this command was given."""
    given = {"--data-dir": data_dir, "--collection": collection, "--embedding": embedding}
    return " ".join(["agentic-rag resume", thread, *(f"{k} {shlex.quote(str(v))}" for k, v in given.items() if v)])
