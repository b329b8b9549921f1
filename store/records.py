"""The records a collection's chunk store hands out: a retrieved chunk, its stable id, and what
ingesting one source changed."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NotRequired, TypedDict


class Chunk(TypedDict):
    """One retrieved chunk (plain JSON-serialisable values)."""

    chunk_id: str
    text: str
    source: str
    title: str
    score: float
    """Retrieval relevance to the query that found it, 0–1 (1: first in every ranking)."""
    dense_rank: int | None
    lexical_rank: int | None
    locator: NotRequired[str]
    """Where the chunk is: ``<source>#<chunk index>``."""
    version: NotRequired[str | None]
    """The date or version its document states (see :func:`ingest.loaders.document_version`)."""
    ingested_at: NotRequired[str | None]
    """When its source was last ingested (ISO 8601, UTC)."""
    continues: NotRequired[str]
    """The term line of the definition-list entry the chunk continues, put before its ``text``."""
    matched_entry: NotRequired[str]
    """The description of the entry in the chunk a search matched to the question (a program's
    option, :mod:`agentic_rag.option_search`): its sentences answer it first."""
    matched_names: NotRequired[str]
    """The matched entry's term lines ("-f --full"), which name what its description says."""
    matched_term: NotRequired[str]
    """The command of the matched group entry the question asks for ("\\dt" of psql's "\\dE … \\dt \\dv" entry)."""
    entry_named: NotRequired[bool]
    """Whether the question names the matched entry's option as written ("-j", "\\x"): a definition
    question's answer is that entry's."""


def chunk_id(source: str, title: str, text: str) -> str:
    """Stable chunk id: the first 32 hex digits of SHA-256 over source, title and content."""
    return hashlib.sha256(f"{source}\x00{title}\x00{text}".encode()).hexdigest()[:32]


@dataclass
class SourceUpdate:
    """What ingesting one source changed: chunks added and removed (0, 0 when unchanged)."""

    source: str
    added: int
    removed: int
