"""Metadata filters and source allowlists on retrieval.

A :class:`ChunkFilter` limits every search of a run (hybrid search, the graph hop's link
targets) to chunks whose ``source`` matches one of the allowlist's glob patterns and whose
metadata fields equal the given values. It is written once and rendered as a SQL ``WHERE``
clause (psycopg parameters) for the dense and BM25 searches and the link query.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.errors import ConfigurationError

FILTER_TYPES: dict[str, type] = {"source": str, "title": str, "chunk_index": int, "version": str}
"""Chunk metadata that can be filtered on (the chunk table's metadata columns) and its type."""
FILTER_FIELDS = tuple(FILTER_TYPES)


def glob_to_like(pattern: str) -> str:
    """A shell glob (``*``, ``?``) as a SQL ``LIKE`` pattern, with ``%``, ``_`` and ``\\`` escaped."""
    escaped = pattern.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped.replace("*", "%").replace("?", "_")


def _typed(name: str, value: object) -> object:
    kind = FILTER_TYPES[name]
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, (int, str)) or not str(value).lstrip("-").isdigit():
            raise ConfigurationError(f"filter field {name} takes whole numbers, not {value!r}")
        return int(value)
    if isinstance(value, (dict, list)) or value is None:
        raise ConfigurationError(f"filter field {name} takes text, not {value!r}")
    return str(value)


@dataclass(frozen=True)
class ChunkFilter:
    """Which chunks a run may retrieve.

    Args:
        sources: glob patterns over the chunk's source (an absolute path, or ``scheme:name``);
            a chunk must match one. Empty: any source.
        fields: metadata field → allowed value or list of values; a chunk must match every field.

    Raises:
        ConfigurationError: a field not in ``FILTER_FIELDS``, an empty value list, or a value
            that is not of the field's type (text fields take any scalar as text: ``2.1`` → "2.1").
    """

    sources: tuple[str, ...] = ()
    fields: tuple[tuple[str, tuple], ...] = field(default=())

    @classmethod
    def build(cls, sources: list[str] | None = None, fields: dict | None = None) -> "ChunkFilter":
        unknown = sorted(set(fields or {}) - set(FILTER_FIELDS))
        if unknown:
            raise ConfigurationError(
                f"unknown filter field(s) {', '.join(unknown)}; filterable fields: {', '.join(FILTER_FIELDS)}"
            )
        normalised = []
        for name, value in sorted((fields or {}).items()):
            values = tuple(value) if isinstance(value, (list, tuple)) else (value,)
            if not values:
                raise ConfigurationError(f"filter field {name} has an empty list of values")
            normalised.append((name, tuple(_typed(name, v) for v in values)))
        return cls(tuple(s for s in (sources or []) if s), tuple(normalised))

    def __bool__(self) -> bool:
        return bool(self.sources or self.fields)

    def to_sql(self, alias: str) -> tuple[str, dict]:
        """(``WHERE``-able condition on the chunk table aliased ``alias``, psycopg parameters);
        ``("TRUE", {})`` when nothing is filtered."""
        conditions, params = [], {}
        if self.sources:
            params["filter_sources"] = [glob_to_like(s) for s in self.sources]
            conditions.append(f"{alias}.source LIKE ANY(%(filter_sources)s)")
        for number, (name, values) in enumerate(self.fields):
            params[f"filter_{number}"] = list(values)
            conditions.append(f"{alias}.{name} = ANY(%(filter_{number})s)")
        return (" AND ".join(conditions) or "TRUE"), params
